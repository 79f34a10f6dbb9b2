"""The version of the engine's formulas. Every saved result records it, so results computed by an
older engine can be told apart after the formulas change."""

MODEL_VERSION = "1.3.0"
