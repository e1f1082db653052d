"""Training (torch, ultralytics): datasets from the synth engine, the two reader stages,
export to the runtime formats. Call `vision.train.offline.setup_offline()` before ultralytics."""
