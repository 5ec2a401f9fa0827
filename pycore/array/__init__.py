"""The array model, with no device in it: the dtypes pycore computes in and how they promote
(`dtypes`), where an array's elements lie in its buffer and the shape rules of broadcasting and
matmul (`layout`: shape, strides, offset, views), and how array-likes become arrays (`convert`).
Everything here is pure and runs the same on every backend. (The lowest layer: it imports no
other part of pycore.)"""
