"""flopfit's calibration probe: a standalone script a user runs on their own GPU machine.

It needs PyTorch there and nothing of flopfit's web stack: `python -m planner.probe` or the
`flopfit-probe` command writes one JSON document that `manage.py calibrate` reads."""
