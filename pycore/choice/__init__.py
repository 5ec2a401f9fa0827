"""Backend choice: `selector` predicts each call's time on the GPU and on NumPy from the adapter
class's defaults and the calibration (the `Calibration` model, validated before use), picks the
faster, and settles repeated calls by measuring them. Its measurements come from
pycore.bench.calibrate. Imports pycore.engine (the saved state) and below."""
