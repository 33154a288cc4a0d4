/*
 * args.c: argument parsing, one convention for every function of the
 * module (METH_FASTCALL | METH_KEYWORDS, read by bs_parse_args).
 */
#include "kernels.h"

int
bs_parse_args(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
              const char *const *names, Py_ssize_t nrequired, Py_ssize_t nparams, PyObject **out)
{
    Py_ssize_t i, k, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nkw && names == NULL) {
        PyErr_Format(PyExc_TypeError, "%s() takes no keyword arguments", fname);
        return -1;
    }
    if (nargs > nparams) {
        if (nrequired == nparams)
            PyErr_Format(PyExc_TypeError, "%s() takes %zd positional arguments but %zd were given",
                         fname, nparams, nargs);
        else
            PyErr_Format(PyExc_TypeError,
                         "%s() takes from %zd to %zd positional arguments but %zd were given",
                         fname, nrequired, nparams, nargs);
        return -1;
    }
    for (i = 0; i < nparams; i++)
        out[i] = i < nargs ? args[i] : NULL;
    for (k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        for (i = 0; i < nparams; i++)
            if (PyUnicode_CompareWithASCIIString(key, names[i]) == 0)
                break;
        if (i == nparams) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname,
                         key);
            return -1;
        }
        if (out[i] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname,
                         names[i]);
            return -1;
        }
        out[i] = args[nargs + k];
    }
    for (i = 0; i < nrequired; i++) {
        if (out[i] == NULL) {
            if (names == NULL)
                PyErr_Format(PyExc_TypeError,
                             "%s() takes %s%zd positional arguments but %zd were given", fname,
                             nrequired == nparams ? "" : "at least ", nrequired, nargs);
            else
                PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fname,
                             names[i]);
            return -1;
        }
    }
    return 0;
}

int
bs_check_str(PyObject *o, const char *what)
{
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be str, not %.100s", what, Py_TYPE(o)->tp_name);
        return -1;
    }
    return ensure_ready(o);
}
