"""Each rack group's `count` becomes that many named racks, numbered in the row from 1, with no
figures of their own (every limit as the group's), so every total stays what it was."""

from django.db import migrations


def rack_name(group_name: str, position: int) -> str:
    # The same rule as planner.racks.services.rack_name, frozen here as migrations must be.
    return f"{group_name}-{position:02d}"


def racks_from_count(apps, schema_editor):
    RackGroup = apps.get_model("planner", "RackGroup")
    Rack = apps.get_model("planner", "Rack")
    for group in RackGroup.objects.all().iterator():
        have = set(Rack.objects.filter(rack_group=group).values_list("position", flat=True))
        Rack.objects.bulk_create(
            Rack(rack_group=group, name=rack_name(group.name, position), position=position)
            for position in range(1, group.count + 1)
            if position not in have
        )


def drop_racks(apps, schema_editor):
    # The groups' counts were never changed; going back only forgets the named racks.
    apps.get_model("planner", "Rack").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("planner", "0011_rack")]

    operations = [migrations.RunPython(racks_from_count, drop_racks)]
