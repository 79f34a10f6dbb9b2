"""The table headings every data table declares with table_tags: one `<th scope="col">` per
label, figures right aligned, button columns named for screen readers only, labels translated
in the page's language and escaped."""

import pytest
from django.template import Context, Template, TemplateSyntaxError
from django.utils import translation

from catalog.models import Fabric


def render(source: str, **context) -> str:
    return Template("{% load table_tags %}" + source).render(Context(context))


def test_column_heads_writes_one_scoped_heading_per_label_in_order():
    html = render('{% column_heads "Name" "Segment" %}')
    assert html == '<th scope="col">Name</th><th scope="col">Segment</th>'


def test_a_column_of_figures_is_right_aligned_like_its_cells():
    html = render('{% column_heads "Name" "Power (W)"|num %}')
    assert html == '<th scope="col">Name</th><th scope="col" class="num">Power (W)</th>'


def test_a_column_of_check_boxes_is_named_for_screen_readers_only():
    html = render('{% column_heads "Compare"|unseen %}')
    assert html == '<th scope="col"><span class="sr-only">Compare</span></th>'


def test_the_actions_column_follows_only_when_the_row_has_buttons():
    with_buttons = render('{% column_heads "Name" actions=can_edit %}', can_edit=True)
    without = render('{% column_heads "Name" actions=can_edit %}', can_edit=False)
    assert with_buttons.endswith('<th scope="col"><span class="sr-only">Actions</span></th>')
    assert without == '<th scope="col">Name</th>'


def test_labels_are_translated_in_the_pages_language_with_their_percent_signs():
    source = '{% column_heads _("Name") _("Progress (%)")|num %}'
    with translation.override("zh-hans"):
        html = render(source)
    # The catalogue's own translations of the two labels (locale/zh_Hans).
    assert html == '<th scope="col">名称</th><th scope="col" class="num">进度（%）</th>'  # noqa: RUF001
    with translation.override("en"):
        assert "Progress (%)" in render(source)


def test_a_label_from_the_page_is_escaped():
    html = render("{% column_heads label %}", label="<b>Cost & power</b>")
    assert html == '<th scope="col">&lt;b&gt;Cost &amp; power&lt;/b&gt;</th>'


def test_table_columns_keeps_the_list_for_a_data_table_and_its_empty_row():
    html = render(
        '{% table_columns "Name" "Racks"|num actions=True as columns %}'
        "{{ columns|length }}|{% column_heads columns %}"
    )
    count, heads = html.split("|")
    assert count == "3"
    assert heads == render('{% column_heads "Name" "Racks"|num actions=True %}')


def test_table_columns_must_name_where_it_keeps_the_list():
    with pytest.raises(TemplateSyntaxError, match="as <name>"):
        render('{% table_columns "Name" %}')


def test_a_table_needs_a_column_and_a_column_needs_a_label():
    with pytest.raises(TemplateSyntaxError, match="at least one column"):
        render("{% column_heads %}")
    with pytest.raises(TemplateSyntaxError, match="needs a label"):
        render("{% column_heads missing %}")


def render_table(**context) -> str:
    source = (
        '{% table_columns _("Name") _("Kind") _("Port (Gbit/s)")|num _("Latency (µs)")|num'
        ' _("Typical topology") _("Ports per switch")|num as columns %}'
        '{% include "htmx/data_table.html" with row_template="catalog/fabric_list.html#row"'
        ' empty="Nothing yet." no_match="Nothing matches." %}'
    )
    return render(source, **context)


def test_a_data_table_draws_each_row_with_the_lists_row_template():
    fabric = Fabric(name="InfiniBand NDR", slug="ib-ndr-400", kind="infiniband", port_gbps=400)
    html = render_table(rows=[fabric])
    assert '<th scope="col" class="num">Port (Gbit/s)</th>' in html
    assert '<a href="/catalog/fabrics/ib-ndr-400/">InfiniBand NDR</a>' in html
    assert '<td class="num">400</td>' in html
    assert "Nothing yet." not in html


def test_an_empty_data_table_says_so_across_every_column():
    assert '<td colspan="6" class="empty">Nothing yet.</td>' in render_table(rows=[])


def test_an_empty_filtered_data_table_says_nothing_matches():
    html = render_table(rows=[], filtered=True)
    assert '<td colspan="6" class="empty">Nothing matches.</td>' in html
