"""A package whose kernels call helpers of sibling modules (tileport test sample)."""
