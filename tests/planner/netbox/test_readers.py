"""Reading NetBox's files: every problem names the file, the line and the column."""

from planner.netbox.readers import NetboxFile, read_file
from tests.planner.netbox.conftest import API_FILES, CSV_FILES, netbox_files


def problems(name: str, text: str) -> list[str]:
    _records, found = read_file(NetboxFile(name, text.encode()))
    return [str(p) for p in found]


def test_every_fixture_reads_without_problems():
    for upload in netbox_files(*CSV_FILES, *API_FILES):
        records, found = read_file(upload)
        assert records and not found, upload.name


def test_each_csv_is_told_apart_by_its_columns_or_its_name():
    kinds = {u.name: {r.kind for r in read_file(u)[0]} for u in netbox_files(*CSV_FILES)}
    assert kinds["racks.csv"] == {"rack"} and kinds["power-panels.csv"] == {"power_panel"}
    assert kinds["power-feeds.csv"] == {"power_feed"} and kinds["power-ports.csv"] == {"power_port"}
    assert kinds["supermicro-sys-821ge-tnhr.yaml"] == {"device_type"}


def test_a_cell_that_is_not_a_number_is_named_by_line_and_column():
    text = "site,power_panel,rack,name,amperage\nDC1,PP-A,A01,A,32\nDC1,PP-A,A01,B,thirty\n"
    assert problems("feeds.csv", text) == [
        "feeds.csv, line 3, column 5 (amperage): 'thirty' is not a number."
    ]


def test_a_phase_netbox_does_not_spell_is_refused():
    text = "site,power_panel,rack,name,phase\nDC1,PP-A,A01,A,3-phase\n"
    (problem,) = problems("feeds.csv", text)
    assert problem.startswith("feeds.csv, line 2, column 5 (phase): '3-phase' is not one of")
    assert "single-phase, three-phase" in problem


def test_a_column_no_netbox_import_form_takes_is_refused():
    text = "site,name,u_height,amps\nDC1,A01,42,32\n"
    assert problems("racks.csv", text) == [
        "racks.csv, line 1, column 4 (amps): amps is not a column of NetBox's rack import."
    ]


def test_a_required_cell_left_empty_is_named():
    text = "site,name,u_height\n,A01,42\n"
    assert problems("racks.csv", text) == ["racks.csv, line 2, column 1 (site): is required."]


def test_broken_json_is_refused_at_its_line_and_column():
    text = '{"results": [\n  {"id": 1, "name": "A01",}\n]}'
    (problem,) = problems("racks.json", text)
    assert problem.startswith("racks.json, line 2, column 27: not JSON")


def test_a_bad_value_in_an_api_answer_is_named_by_line_and_column():
    text = '{"results": [\n  {"id": 1, "site": {"id": 2, "name": "DC2"},\n   "name": "B01", "u_height": "tall"}\n]}'
    assert problems("racks.json", text) == [
        "racks.json, line 3, column 31 (u_height): 'tall' is not a number."
    ]


def test_a_bad_value_in_a_device_type_yaml_is_named_by_line_and_column():
    text = "manufacturer: Acme\nmodel: X1\nu_height: 2\npower-ports:\n  - name: PSU1\n    maximum_draw: lots\n"
    assert problems("acme-x1.yaml", text) == [
        "acme-x1.yaml, line 6, column 19 (maximum_draw): 'lots' is not a number."
    ]


def test_a_file_that_is_no_netbox_export_is_refused():
    assert problems("notes.txt", "hello") == [
        "notes.txt, line 1: not a NetBox export: name it .csv, .json, .yaml or .yml as exported."
    ]
    assert problems("x.csv", "a,b\n1,2\n")[0].startswith("x.csv, line 1: cannot tell which")
    (problem,) = problems("x.json", '{"results": [{"foo": 1}]}')
    assert problem.startswith("x.json, line 1, column 14: not a NetBox site")
