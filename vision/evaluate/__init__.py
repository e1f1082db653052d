"""Offline evaluation (`referee eval`): dataset loading, pipeline runs, metrics, report."""
