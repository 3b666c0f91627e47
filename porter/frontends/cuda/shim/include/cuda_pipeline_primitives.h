/* tileport parse stand-in for <cuda_pipeline_primitives.h>: the pipeline primitives, declared. */
#pragma once
__device__ void __pipeline_memcpy_async(void *dst, const void *src, unsigned long size, unsigned long zfill = 0);
__device__ void __pipeline_commit();
__device__ void __pipeline_wait_prior(unsigned long n);
