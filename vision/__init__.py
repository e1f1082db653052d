"""Vision: frames -> card detections -> table state -> table events."""
