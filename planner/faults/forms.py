"""Forms of the fault pages: a pasted text to diagnose, a team's own entry, an incident."""

from __future__ import annotations

from django import forms
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from planner.faults.selectors import MAX_TEXT_CHARS, fault_entry_visible_to
from planner.models import FaultEntry, FaultIncident, Site
from planner.web.editing import VersionedModelForm
from planner.web.fields import accelerator_field, model_field
from planner.web.forms import FieldsetsMixin
from planner.web.widgets import date_input

TASKS = (("", "—"), ("train", _("Train")), ("finetune", _("Fine-tune")), ("inference", _("Serve")))


class DiagnoseForm(forms.Form):
    """A pasted log and, optionally, the job it came from (carried to the Estimate page)."""

    text = forms.CharField(
        label=_("Log, nvidia-smi output or traceback"),
        max_length=MAX_TEXT_CHARS,
        widget=forms.Textarea(
            attrs={
                "rows": 12,
                "spellcheck": "false",
                "placeholder": "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, "
                "GPU has fallen off the bus.",
            }
        ),
        help_text=_("Paste dmesg, nvidia-smi -q, a Python traceback or NCCL output"),
    )
    task = forms.ChoiceField(label=_("Task"), choices=TASKS, required=False)
    model = model_field(optional=True)
    accelerator = accelerator_field(optional=True)
    count = forms.IntegerField(label=_("Devices"), min_value=1, required=False)

    def job(self) -> dict:
        """The job as the Estimate page's query names it (slugs, not rows)."""
        data = self.cleaned_data
        return {
            "task": data.get("task") or "",
            "model": data["model"].slug if data.get("model") else "",
            "accelerator": data["accelerator"].slug if data.get("accelerator") else "",
            "count": data.get("count") or "",
        }


class FaultEntryForm(FieldsetsMixin, VersionedModelForm):
    """A team's own entry; the team is the signed-in user's and is never chosen here."""

    class Meta:
        model = FaultEntry
        fields = list(FaultEntry.STATED_FIELDS)
        widgets = {
            "patterns": forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}),
            "checks": forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}),
            "symptoms_en": forms.Textarea(attrs={"rows": 2}),
            "symptoms_zh": forms.Textarea(attrs={"rows": 2}),
            "causes_en": forms.Textarea(attrs={"rows": 3}),
            "causes_zh": forms.Textarea(attrs={"rows": 3}),
            "fixes_en": forms.Textarea(attrs={"rows": 3}),
            "fixes_zh": forms.Textarea(attrs={"rows": 3}),
            "read_on": date_input(),
        }

    FIELDSETS = (
        (_("What"), ("title_en", "title_zh", "category")),
        (
            _("How to recognise it"),
            ("xid_codes", "patterns", "weight", "symptoms_en", "symptoms_zh"),
        ),
        (
            _("Causes, checks and fixes"),
            ("causes_en", "causes_zh", "checks", "fixes_en", "fixes_zh", "link"),
        ),
        (_("Source"), ("source", "read_on")),
    )


class FaultIncidentForm(FieldsetsMixin, VersionedModelForm):
    """An incident of the user's team: the entries it may name are the guide's and the team's,
    the sites the team's own."""

    accelerator = accelerator_field(optional=True, by_slug=False)

    class Meta:
        model = FaultIncident
        fields = list(FaultIncident.STATED_FIELDS)
        widgets = {
            "happened_on": date_input(),
            "what_happened": forms.Textarea(attrs={"rows": 3}),
            "evidence": forms.Textarea(attrs={"rows": 4, "spellcheck": "false"}),
            "fix": forms.Textarea(attrs={"rows": 3}),
        }

    FIELDSETS = (
        (_("What and when"), ("entry", "happened_on", "what_happened", "evidence")),
        (_("Where"), ("site", "accelerator", "hardware")),
        (_("The fix"), ("fix", "resolved")),
    )

    def __init__(self, *args, user, team, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["entry"].queryset = fault_entry_visible_to(user).filter(
            Q(team=team) | Q(team__isnull=True)
        )
        self.fields["site"].queryset = Site.objects.filter(team=team).order_by("name")
        self.instance.team = team
