"""The array model, with no device in it: the dtypes pycore computes in and how they promote
(`dtypes`), and where an array's elements lie in its buffer (`layout`: shape, strides, offset,
views and broadcasting). Everything here is pure and runs the same on every backend."""
