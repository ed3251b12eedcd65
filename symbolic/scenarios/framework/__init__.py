"""Framework execution: eager dispatch, training steps, dense networks, epochs."""
