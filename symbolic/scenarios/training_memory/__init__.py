"""Training memory: working sets, optimizer state, activations."""
