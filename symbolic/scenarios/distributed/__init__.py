"""Distributed training: parallelism and collective communication."""
