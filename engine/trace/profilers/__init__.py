"""Readers for profilers other than Kineto (Nsight Systems, rocprofv3, Nsight Compute), each
into the same Measurement the Kineto reader fills; `detect` picks one by the file's content."""
