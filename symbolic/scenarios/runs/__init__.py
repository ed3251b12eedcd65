"""Runs and performance: whole training runs, utilization and cost."""
