"""A stand-in for Python 2's dbhash module (Berkeley DB), which pyenv's 2.7
lacks and Planet 2.0 imports for its cache: the same open() on dumbdbm."""
import dumbdbm

error = dumbdbm.error


def open(file, flag="r", mode=0666):
    if flag == "r":
        import os
        if not os.path.exists(file + ".dat"):
            raise error("no such database: %s" % file)
    return dumbdbm.open(file, "c" if flag in ("c", "n", "w") else flag, mode)
