"""What the scorer and the director say after the results are in, each command an aggregate over its
session's stream."""
