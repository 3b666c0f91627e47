"""A stand-in library for the generated-kernel samples: tileport reads the samples, never runs them."""
