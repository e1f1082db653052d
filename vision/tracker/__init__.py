"""Table tracker: layout zones, motion gating, temporal filter, events, reveals, Khmer.

Entry point: `vision.tracker.pipeline.TablePipeline` (frames in, `TableState` and
public-vocabulary events out). Heavy imports (cv2) happen inside the functions that need
them, so importing this package stays cheap.
"""
