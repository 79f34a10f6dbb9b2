"""The NetBox import page: upload, a preview of what would change (nothing saved), Import."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from planner.models import PowerFeed, Site
from tests.planner.netbox.conftest import CSV_FILES, FIXTURES

pytestmark = pytest.mark.django_db
URL = reverse("planner:netbox_import")


def uploads(*paths: str, **replaced: bytes) -> list[SimpleUploadedFile]:
    return [
        SimpleUploadedFile(
            path.split("/")[-1], replaced.get(path) or (FIXTURES / path).read_bytes()
        )
        for path in paths
    ]


def post_files(client, files, **fields):
    data = {"pue": "1.3", "electricity_price_per_kwh": "0.65", "currency": "CNY", "cooling": "air"}
    return client.post(URL, data | fields | {"files": files})


def token_of(response) -> str:
    text = response.content.decode()
    start = text.index('name="token" value="') + len('name="token" value="')
    return text[start : text.index('"', start)]


def test_the_preview_saves_nothing_and_import_saves_what_it_showed(cast):
    client = cast.browser("facility")
    preview = post_files(client, uploads(*CSV_FILES))
    assert preview.status_code == 200
    page = preview.content.decode()
    assert "What the import would do" in page and "A01-A" in page and "17.7" in page
    assert not Site.objects.filter(team=cast.team).exists()
    done = client.post(URL, {"token": token_of(preview)})
    assert done.status_code == 302 and done.url == reverse("planner:site_list")
    assert PowerFeed.objects.filter(rack__rack_group__site__team=cast.team).count() == 5


def test_a_second_upload_of_the_same_files_has_nothing_to_import(cast):
    client = cast.browser("facility")
    client.post(URL, {"token": token_of(post_files(client, uploads(*CSV_FILES)))})
    again = post_files(client, uploads(*CSV_FILES)).content.decode()
    assert "nothing to import" in again and 'name="token"' not in again


def test_a_bad_file_is_refused_with_file_line_and_column_in_chinese_too(cast):
    client = cast.browser("facility")
    bad = b"site,power_panel,rack,name,amperage\nDC1,PP-A,A01,A,lots\n"
    response = post_files(
        client,
        [*uploads("csv/racks.csv", "csv/sites.csv"), SimpleUploadedFile("feeds.csv", bad)],
    )
    assert response.status_code == 400
    assert "feeds.csv, line 2, column 5 (amperage)" in response.content.decode()
    client.cookies.load({"django_language": "zh-hans"})
    chinese = post_files(client, [SimpleUploadedFile("feeds.csv", bad)]).content.decode()
    assert "feeds.csv，第 2 行，第 5 列（amperage）" in chinese  # noqa: RUF001
    assert not Site.objects.filter(team=cast.team).exists()


def test_the_import_refuses_when_the_racks_changed_after_the_preview(cast):
    client = cast.browser("facility")
    first = post_files(client, uploads(*CSV_FILES))
    client.post(URL, {"token": token_of(first)})
    feeds = (FIXTURES / "csv/power-feeds.csv").read_bytes().replace(b"400,32,80", b"400,40,80", 1)
    preview = post_files(client, uploads(*CSV_FILES, **{"csv/power-feeds.csv": feeds}))
    token = token_of(preview)
    PowerFeed.objects.filter(name="A01-A").update(amperage=50)  # someone else, meanwhile
    response = client.post(URL, {"token": token})
    assert response.status_code == 409
    assert PowerFeed.objects.get(name="A01-A").amperage == 50


@pytest.mark.parametrize("who", ["viewer", "planner", "anonymous"])
def test_only_facility_people_reach_the_page(cast, who):
    response = cast.browser(who).get(URL)
    assert response.status_code in (302, 403)


def test_a_token_imports_once(cast):
    client = cast.browser("facility")
    token = token_of(post_files(client, uploads(*CSV_FILES)))
    client.post(URL, {"token": token})
    assert client.post(URL, {"token": token}).status_code == 400
