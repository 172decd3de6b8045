"""Compiled code for modules imported from zip files, kept between processes. Installed in every test host
(tools/testhost.py), never on a real server.

Ansible runs each task's module as a zip (AnsiballZ) that carries `ansible.module_utils`, and Python compiles a
module imported from a zip afresh in every process: a third of each module run's CPU on a test host (0.055 of 0.17 s
for `stat`), about 30 s of a suite run's hundreds of module runs. The cache is keyed by the module's source, its
path inside the zip and the bytecode version, so what runs is exactly what Python would have compiled; each code
object is given the file name of the zip it came from, as a fresh compilation would."""

import hashlib
import importlib.util
import marshal
import os
import zipimport

CACHE = "/var/cache/sahab-testhost-code"
_compile_source = zipimport._compile_source


def _renamed(code, filename):
    consts = tuple(_renamed(c, filename) if isinstance(c, type(code)) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _cached_compile(pathname, source):
    inside = pathname.rsplit(".zip/", 1)[-1].rsplit(".py/", 1)[-1]  # AnsiballZ_x.py/ansible/... inside the zip
    key = hashlib.sha256(b"\0".join([importlib.util.MAGIC_NUMBER, inside.encode(), source])).hexdigest()
    path = os.path.join(CACHE, key)
    try:
        with open(path, "rb") as cached:
            return _renamed(marshal.load(cached), pathname)
    except (OSError, EOFError, ValueError, TypeError):
        pass
    code = _compile_source(pathname, source)
    try:
        partial = f"{path}.{os.getpid()}"
        with open(partial, "wb") as out:
            marshal.dump(code, out)
        os.replace(partial, path)
    except OSError:  # a user who cannot write the cache compiles as Python would
        pass
    return code


zipimport._compile_source = _cached_compile
