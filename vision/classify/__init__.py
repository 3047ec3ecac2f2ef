"""The crop classifier: one small CNN for every game's pieces, trained with torch on crops of
synthetic scenes (`create_dataset`, `train`, `evaluate`, each runnable with `python -m`) and
run with onnxruntime (`vision.classify.model`)."""
