import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]


def test_estimate_reads_a_file_and_prints_json(loaded_catalog, tmp_path, capsys):
    path = tmp_path / "q.json"
    path.write_text(
        json.dumps(
            {
                "task": "inference",
                "model": "meta-llama-3-8b",
                "accelerator": "nvidia-l4",
                "count": 1,
            }
        )
    )
    call_command("estimate", str(path))
    answer = json.loads(capsys.readouterr().out)
    assert answer["inference"]["tpot_ms"] > 0


def test_estimate_reads_stdin_and_prints_a_table(loaded_catalog, monkeypatch, capsys):
    monkeypatch.setattr(
        sys,
        "stdin",
        io.StringIO(
            json.dumps(
                {
                    "task": "train",
                    "model": "meta-llama-3-8b",
                    "accelerator": "nvidia-h100-sxm5-80gb",
                    "count": 8,
                }
            )
        ),
    )
    call_command("estimate", "-", format="table")
    out = capsys.readouterr().out
    assert "memory per device" in out and "bottleneck" in out
    # Llama 2 trained 7B-70B models at 4M tokens a step: 2,048 sequences of 2,048.
    assert "global batch             2,048 sequences, 4M tokens a step (chosen" in out


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            '{"task": "train", "model": "meta-llama-3-8b", "accelerator": "nvidia-h100-sxm5-80gb", "count": -2}',
            "count: must be at least 1",
        ),
        (
            '{"task": "train", "model": "no-such", "accelerator": "nvidia-h100-sxm5-80gb", "count": 8}',
            "model: unknown",
        ),
        ("{not json", "request: not valid JSON"),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_the_field(
    loaded_catalog, monkeypatch, capsys, question, expected
):
    monkeypatch.setattr(sys, "stdin", io.StringIO(question))
    with pytest.raises(SystemExit) as excinfo:
        call_command("estimate", "-")
    assert excinfo.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and expected in err


def test_a_missing_file_exits_2(db, capsys):
    with pytest.raises(SystemExit) as excinfo:
        call_command("estimate", "/nonexistent/q.json")
    assert excinfo.value.code == 2
    assert "file:" in capsys.readouterr().err


def test_validate_prints_the_whole_table(capsys):
    call_command("validate")
    out = capsys.readouterr().out
    assert out.count("\nB") >= 35 and "median |error|" in out


def test_estimate_command_runs_as_a_program(loaded_catalog):
    # The real entry point, as a user types it (reads the test database through settings).
    result = subprocess.run(
        [sys.executable, "manage.py", "estimate", "-"],
        input='{"task": "dream", "model": "x", "accelerator": "y", "count": 8}',
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**__import__("os").environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"},
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("error: ")
