"""Game-video simulator: simulated players, director, renderer, `referee synth video`."""
