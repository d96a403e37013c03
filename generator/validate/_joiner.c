/* The joining step of the partition of large inputs (capzgen issue 29), in C: what
 * generator/validate/partition.py's PythonJoiner does in Python,
 * the same semantics exactly (tests/validate/test_joiner.py runs both on the same keys).
 *
 * A Joiner owns the disjoint sets of document numbers (the root of a set is its earliest
 * document), the first declarer of every key (an open-addressing table of 64-bit hashes) and
 * every (namespace-free key, declarer) pair. The keys nobody declared yet, the referrers of
 * shareable kinds, the unresolved keys, the kinds seen and the namespace flags stay Python
 * dictionaries, sets and lists that the Partitioner owns and hands over once: they are touched
 * for a few keys only, and the Partitioner reads them as it always did.
 *
 * Every array grows by doubling and is bounded by the number of documents and keys given; a
 * document number past INT32_MAX is refused (an input that large cannot be held anyway). The
 * codes are read from a buffer of int64 ('q') within [start, end), each read checked against end.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define VERSION 1
#define EMPTY (-1)

typedef struct {
    PyObject_HEAD
    int32_t *parent; /* the disjoint sets: parent[doc] */
    Py_ssize_t count, cap;
    int64_t *keys;   /* declared: key -> first declaring document (values EMPTY: a free slot) */
    int32_t *values;
    Py_ssize_t mask, used;
    int64_t *ekeys;  /* everywhere: namespace-free key, declaring document, in order */
    int32_t *edocs;
    Py_ssize_t ecount, ecap;
    PyObject *pending_first, *pending_more; /* Multimap of keys nobody declared yet */
    PyObject *hub_first, *hub_more;         /* Multimap of referrers of shareable kinds */
    PyObject *unresolved;                   /* dict: key -> its namespace-free key */
    PyObject *kinds;                        /* set of kind names */
    PyObject *namespaced;                   /* list of two booleans */
} Joiner;

/* -------------------------------------------------------------------------------------------- */

static int32_t
find(Joiner *self, int32_t item)
{
    int32_t *parent = self->parent;
    int32_t root = item;
    while (parent[root] != root) {
        root = parent[root];
    }
    while (parent[item] != root) {
        int32_t next = parent[item];
        parent[item] = root;
        item = next;
    }
    return root;
}

static void
join(Joiner *self, int32_t a, int32_t b)
{
    int32_t ra = find(self, a), rb = find(self, b);
    if (ra != rb) {
        if (ra < rb) {
            self->parent[rb] = ra; /* the earliest document stays the root */
        } else {
            self->parent[ra] = rb;
        }
    }
}

static Py_ssize_t
slot_of(Joiner *self, int64_t key)
{
    Py_ssize_t slot = (Py_ssize_t)((uint64_t)key & (uint64_t)self->mask);
    while (self->values[slot] != EMPTY && self->keys[slot] != key) {
        slot = (slot + 1) & self->mask;
    }
    return slot;
}

static int
table_resize(Joiner *self, Py_ssize_t capacity)
{
    int64_t *keys = PyMem_Calloc((size_t)capacity, sizeof(int64_t));
    int32_t *values = PyMem_Malloc((size_t)capacity * sizeof(int32_t));
    if (keys == NULL || values == NULL) {
        PyMem_Free(keys);
        PyMem_Free(values);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < capacity; i++) {
        values[i] = EMPTY;
    }
    int64_t *old_keys = self->keys;
    int32_t *old_values = self->values;
    Py_ssize_t old_capacity = self->keys == NULL ? 0 : self->mask + 1;
    self->keys = keys;
    self->values = values;
    self->mask = capacity - 1;
    for (Py_ssize_t i = 0; i < old_capacity; i++) {
        if (old_values[i] != EMPTY) {
            Py_ssize_t slot = slot_of(self, old_keys[i]);
            keys[slot] = old_keys[i];
            values[slot] = old_values[i];
        }
    }
    PyMem_Free(old_keys);
    PyMem_Free(old_values);
    return 0;
}

/* The first declarer of key, storing doc first if there is none (-2: out of memory). */
static int32_t
setdefault(Joiner *self, int64_t key, int32_t doc)
{
    Py_ssize_t slot = slot_of(self, key);
    if (self->values[slot] != EMPTY) {
        return self->values[slot];
    }
    self->keys[slot] = key;
    self->values[slot] = doc;
    self->used += 1;
    if (self->used * 3 > self->mask * 2 && table_resize(self, 4 * (self->mask + 1)) < 0) {
        return -2;
    }
    return doc;
}

static int32_t
declared(Joiner *self, int64_t key)
{
    return self->values[slot_of(self, key)];
}

/* -------------------------------------------------------------------------------------------- */
/* The Python-owned Multimaps (generator.validate.partition_tables.Multimap: ``first`` maps a key
 * to its first document, ``more`` to an array of the others, a repeat of the first dropped). The
 * arrays are array('q'), 8 bytes a document as in the Python joiner's: a hub's
 * referrers (every namespaced object refers to its Namespace) run to hundreds of thousands, and
 * a list of ints would take five times that. */

static PyObject *array_type;  /* array.array, imported when the module is */
static PyObject *append_name; /* "append" */

static int
multimap_add(PyObject *first, PyObject *more, PyObject *key, int32_t doc)
{
    PyObject *number = PyLong_FromLong(doc);
    if (number == NULL) {
        return -1;
    }
    int result = 0;
    PyObject *found = PyDict_SetDefault(first, key, number); /* borrowed */
    if (found == NULL) {
        result = -1;
    } else if (found != number && PyLong_AsLong(found) != doc) { /* a repeat of the first: no */
        PyObject *others = PyDict_GetItemWithError(more, key);  /* borrowed */
        if (others == NULL && !PyErr_Occurred()) {
            PyObject *made = PyObject_CallFunction(array_type, "s", "q");
            if (made != NULL && PyDict_SetItem(more, key, made) == 0) {
                others = made; /* the dictionary holds it now */
            }
            Py_XDECREF(made);
        }
        PyObject *done = NULL;
        if (others != NULL) {
            done = PyObject_CallMethodOneArg(others, append_name, number);
        }
        result = done == NULL ? -1 : 0;
        Py_XDECREF(done);
    }
    Py_DECREF(number);
    return result;
}

/* Join doc with every document waiting for key, and forget them (Multimap.pop). */
static int
join_waiting(Joiner *self, PyObject *key, int32_t doc)
{
    PyObject *first = PyDict_GetItemWithError(self->pending_first, key); /* borrowed */
    if (first == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    long waiting = PyLong_AsLong(first);
    if (waiting == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (waiting < 0 || waiting >= self->count) {
        PyErr_SetString(PyExc_IndexError, "no such document");
        return -1;
    }
    join(self, doc, (int32_t)waiting);
    if (PyDict_DelItem(self->pending_first, key) < 0) {
        return -1;
    }
    PyObject *others = PyDict_GetItemWithError(self->pending_more, key); /* borrowed */
    if (others == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(others, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        return -1;
    }
    int result = 0;
    if (view.itemsize != 8 || view.format == NULL || strcmp(view.format, "q") != 0) {
        PyErr_SetString(PyExc_TypeError, "a Multimap's documents must be an array of 'q'");
        result = -1;
    }
    const int64_t *docs = (const int64_t *)view.buf;
    for (Py_ssize_t i = 0; result == 0 && i < view.len / 8; i++) {
        if (docs[i] < 0 || docs[i] >= self->count) {
            PyErr_SetString(PyExc_IndexError, "no such document");
            result = -1;
        } else {
            join(self, doc, (int32_t)docs[i]);
        }
    }
    PyBuffer_Release(&view);
    if (result == 0) {
        result = PyDict_DelItem(self->pending_more, key);
    }
    return result;
}

static int
declare(Joiner *self, int64_t code, int has_free, int64_t namefree, int32_t doc)
{
    if (has_free) {
        if (self->ecount == self->ecap) {
            Py_ssize_t cap = self->ecap ? 2 * self->ecap : 1024;
            int64_t *keys = PyMem_Realloc(self->ekeys, (size_t)cap * sizeof(int64_t));
            if (keys == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            self->ekeys = keys;
            int32_t *docs = PyMem_Realloc(self->edocs, (size_t)cap * sizeof(int32_t));
            if (docs == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            self->edocs = docs;
            self->ecap = cap;
        }
        self->ekeys[self->ecount] = namefree;
        self->edocs[self->ecount] = doc;
        self->ecount += 1;
    }
    int32_t first = setdefault(self, code, doc);
    if (first == -2) {
        return -1;
    }
    if (first != doc) {
        join(self, first, doc);
    }
    if (PyDict_GET_SIZE(self->pending_first) == 0 && PyDict_GET_SIZE(self->unresolved) == 0) {
        return 0;
    }
    PyObject *key = PyLong_FromLongLong(code);
    if (key == NULL) {
        return -1;
    }
    int result = join_waiting(self, key, doc);
    if (result == 0) {
        int present = PyDict_Contains(self->unresolved, key);
        if (present < 0 || (present && PyDict_DelItem(self->unresolved, key) < 0)) {
            result = -1; /* resolved after all: no need to look elsewhere */
        }
    }
    Py_DECREF(key);
    return result;
}

static int
refer(Joiner *self, int64_t code, int hub, int has_free, int64_t namefree, int32_t doc)
{
    if (!hub) {
        int32_t declarer = declared(self, code);
        if (declarer != EMPTY) {
            join(self, declarer, doc);
            return 0;
        }
    }
    PyObject *key = PyLong_FromLongLong(code);
    if (key == NULL) {
        return -1;
    }
    int result = hub ? multimap_add(self->hub_first, self->hub_more, key, doc)
                     : multimap_add(self->pending_first, self->pending_more, key, doc);
    if (result == 0 && has_free) {
        int present = PyDict_Contains(self->unresolved, key);
        if (present < 0) {
            result = -1;
        } else if (!present) {
            PyObject *free = PyLong_FromLongLong(namefree);
            result = free == NULL ? -1 : PyDict_SetItem(self->unresolved, key, free);
            Py_XDECREF(free);
        }
    }
    Py_DECREF(key);
    return result;
}

static int32_t
new_document(Joiner *self)
{
    if (self->count >= INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "too many documents to partition");
        return -1;
    }
    if (self->count == self->cap) {
        Py_ssize_t cap = self->cap ? 2 * self->cap : 1024;
        int32_t *parent = PyMem_Realloc(self->parent, (size_t)cap * sizeof(int32_t));
        if (parent == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        self->parent = parent;
        self->cap = cap;
    }
    int32_t doc = (int32_t)self->count;
    self->parent[doc] = doc;
    self->count += 1;
    return doc;
}

static int
bad_codes(void)
{
    PyErr_SetString(PyExc_ValueError, "packed keys end inside a document");
    return -1;
}

/* One document's codes from at (see generator.validate.partition_keys.PackedKeys); the next
 * document's start in *next. */
static int
add_document(Joiner *self, const int64_t *codes, Py_ssize_t at, Py_ssize_t end, PyObject *names,
             Py_ssize_t *next)
{
    if (end - at < 3) {
        return bad_codes();
    }
    int32_t doc = new_document(self);
    if (doc < 0) {
        return -1;
    }
    int64_t kind = codes[at], namespaced = codes[at + 1], count = codes[at + 2];
    if (kind >= 0) {
        if (kind >= PyTuple_GET_SIZE(names)) {
            PyErr_SetString(PyExc_IndexError, "kind index out of range");
            return -1;
        }
        if (PySet_Add(self->kinds, PyTuple_GET_ITEM(names, kind)) < 0) {
            return -1;
        }
    }
    if (namespaced >= 0) {
        if (namespaced >= PyList_GET_SIZE(self->namespaced)) {
            PyErr_SetString(PyExc_IndexError, "namespace flag out of range");
            return -1;
        }
        Py_INCREF(Py_True);
        if (PyList_SetItem(self->namespaced, (Py_ssize_t)namespaced, Py_True) < 0) {
            return -1;
        }
    }
    at += 3;
    if (count < 0 || count > (end - at) / 3) {
        return bad_codes();
    }
    for (int64_t k = 0; k < count; k++, at += 3) {
        if (declare(self, codes[at], codes[at + 1] != 0, codes[at + 2], doc) < 0) {
            return -1;
        }
    }
    if (at >= end) {
        return bad_codes();
    }
    count = codes[at++];
    if (count < 0 || count > (end - at) / 3) {
        return bad_codes();
    }
    for (int64_t k = 0; k < count; k++, at += 3) {
        int64_t flags = codes[at + 1];
        if (refer(self, codes[at], (int)(flags & 1), (flags & 2) != 0, codes[at + 2], doc) < 0) {
            return -1;
        }
    }
    *next = at;
    return 0;
}

/* -------------------------------------------------------------------------------------------- */

static PyObject *
Joiner_add_packed(Joiner *self, PyObject *args)
{
    PyObject *codes_obj, *names;
    Py_ssize_t start, end;
    if (!PyArg_ParseTuple(args, "OnnO!", &codes_obj, &start, &end, &PyTuple_Type, &names)) {
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(codes_obj, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        return NULL;
    }
    PyObject *result = NULL;
    if (view.itemsize != 8 || view.format == NULL || strcmp(view.format, "q") != 0) {
        PyErr_SetString(PyExc_TypeError, "packed codes must be an array of 'q'");
        goto done;
    }
    Py_ssize_t length = view.len / 8;
    if (start < 0 || end > length || start > end) {
        PyErr_SetString(PyExc_IndexError, "codes out of range");
        goto done;
    }
    const int64_t *codes = (const int64_t *)view.buf;
    Py_ssize_t first = self->count;
    for (Py_ssize_t at = start; at < end;) {
        if (add_document(self, codes, at, end, names, &at) < 0) {
            goto done;
        }
    }
    result = Py_BuildValue("nn", first, self->count);
done:
    PyBuffer_Release(&view);
    return result;
}

static int
document_arg(Joiner *self, PyObject *arg, int32_t *doc)
{
    Py_ssize_t value = PyLong_AsSsize_t(arg);
    if (value == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (value < 0 || value >= self->count) {
        PyErr_SetString(PyExc_IndexError, "no such document");
        return -1;
    }
    *doc = (int32_t)value;
    return 0;
}

static PyObject *
Joiner_find(Joiner *self, PyObject *arg)
{
    int32_t doc;
    if (document_arg(self, arg, &doc) < 0) {
        return NULL;
    }
    return PyLong_FromLong(find(self, doc));
}

static PyObject *
Joiner_union(Joiner *self, PyObject *const *args, Py_ssize_t nargs)
{
    int32_t a, b;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "union takes two documents");
        return NULL;
    }
    if (document_arg(self, args[0], &a) < 0 || document_arg(self, args[1], &b) < 0) {
        return NULL;
    }
    join(self, a, b);
    Py_RETURN_NONE;
}

static PyObject *
Joiner_get(Joiner *self, PyObject *arg)
{
    long long key = PyLong_AsLongLong(arg);
    if (key == -1 && PyErr_Occurred()) {
        return NULL;
    }
    int32_t doc = declared(self, (int64_t)key);
    if (doc == EMPTY) {
        Py_RETURN_NONE;
    }
    return PyLong_FromLong(doc);
}

static PyObject *
Joiner_declarers(Joiner *self, PyObject *wanted)
{
    if (!PyAnySet_Check(wanted)) {
        PyErr_SetString(PyExc_TypeError, "declarers takes a set of keys");
        return NULL;
    }
    PyObject *found = PyDict_New();
    if (found == NULL || PySet_GET_SIZE(wanted) == 0) {
        return found;
    }
    for (Py_ssize_t i = self->ecount - 1; i >= 0; i--) { /* latest first */
        PyObject *key = PyLong_FromLongLong(self->ekeys[i]);
        if (key == NULL) {
            goto error;
        }
        int present = PySet_Contains(wanted, key);
        int failed = present < 0;
        if (present > 0) {
            PyObject *docs = PyDict_GetItemWithError(found, key); /* borrowed */
            if (docs == NULL && !PyErr_Occurred()) {
                PyObject *made = PyList_New(0);
                if (made != NULL && PyDict_SetItem(found, key, made) == 0) {
                    docs = made; /* the dictionary holds it now */
                }
                Py_XDECREF(made);
            }
            PyObject *doc = docs == NULL ? NULL : PyLong_FromLong(self->edocs[i]);
            failed = doc == NULL || PyList_Append(docs, doc) < 0;
            Py_XDECREF(doc);
        }
        Py_DECREF(key);
        if (failed) {
            goto error;
        }
    }
    return found;
error:
    Py_DECREF(found);
    return NULL;
}

static Py_ssize_t
Joiner_len(Joiner *self)
{
    return self->count;
}

static int
Joiner_init(Joiner *self, PyObject *args, PyObject *kwds)
{
    PyObject *pending_first, *pending_more, *hub_first, *hub_more, *unresolved, *kinds, *flags;
    static char *keywords[] = {"pending_first", "pending_more", "hub_first", "hub_more",
                               "unresolved", "kinds", "namespaced", NULL};
    if (self->keys != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "a Joiner is set up once");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!O!O!O!O!O!", keywords, &PyDict_Type,
                                     &pending_first, &PyDict_Type, &pending_more, &PyDict_Type,
                                     &hub_first, &PyDict_Type, &hub_more, &PyDict_Type,
                                     &unresolved, &PySet_Type, &kinds, &PyList_Type, &flags)) {
        return -1;
    }
    if (table_resize(self, 1 << 12) < 0) {
        return -1;
    }
    PyObject **slots[] = {&self->pending_first, &self->pending_more, &self->hub_first,
                          &self->hub_more,      &self->unresolved,   &self->kinds,
                          &self->namespaced};
    PyObject *given[] = {pending_first, pending_more, hub_first, hub_more, unresolved, kinds,
                         flags};
    for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++) {
        Py_INCREF(given[i]);
        Py_XSETREF(*slots[i], given[i]);
    }
    return 0;
}

static int
Joiner_traverse(Joiner *self, visitproc visit, void *arg)
{
    Py_VISIT(self->pending_first);
    Py_VISIT(self->pending_more);
    Py_VISIT(self->hub_first);
    Py_VISIT(self->hub_more);
    Py_VISIT(self->unresolved);
    Py_VISIT(self->kinds);
    Py_VISIT(self->namespaced);
    return 0;
}

static int
Joiner_clear(Joiner *self)
{
    Py_CLEAR(self->pending_first);
    Py_CLEAR(self->pending_more);
    Py_CLEAR(self->hub_first);
    Py_CLEAR(self->hub_more);
    Py_CLEAR(self->unresolved);
    Py_CLEAR(self->kinds);
    Py_CLEAR(self->namespaced);
    return 0;
}

static void
Joiner_dealloc(Joiner *self)
{
    PyObject_GC_UnTrack(self);
    Joiner_clear(self);
    PyMem_Free(self->parent);
    PyMem_Free(self->keys);
    PyMem_Free(self->values);
    PyMem_Free(self->ekeys);
    PyMem_Free(self->edocs);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Joiner_methods[] = {
    {"add_packed", (PyCFunction)Joiner_add_packed, METH_VARARGS,
     "add_packed(codes, start, end, kinds) -> (first, end): the documents packed in\n"
     "codes[start:end] added in order, numbered first to end - 1."},
    {"find", (PyCFunction)Joiner_find, METH_O, "The root (earliest document) of a set."},
    {"union", (PyCFunction)(void (*)(void))Joiner_union, METH_FASTCALL,
     "Join the sets of two documents."},
    {"get", (PyCFunction)Joiner_get, METH_O, "The first declarer of a key, or None."},
    {"declarers", (PyCFunction)Joiner_declarers, METH_O,
     "For each of a set of namespace-free keys declared somewhere, its declarers, latest first."},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods Joiner_as_sequence = {
    .sq_length = (lenfunc)Joiner_len,
};

static PyTypeObject JoinerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "generator.validate._joiner.Joiner",
    .tp_basicsize = sizeof(Joiner),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The union-find and declared keys of one Partitioner (see the module's source).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Joiner_init,
    .tp_dealloc = (destructor)Joiner_dealloc,
    .tp_traverse = (traverseproc)Joiner_traverse,
    .tp_clear = (inquiry)Joiner_clear,
    .tp_methods = Joiner_methods,
    .tp_as_sequence = &Joiner_as_sequence,
};

static int
exec_module(PyObject *module)
{
    if (array_type == NULL) {
        PyObject *arrays = PyImport_ImportModule("array");
        if (arrays == NULL) {
            return -1;
        }
        array_type = PyObject_GetAttrString(arrays, "array");
        Py_DECREF(arrays);
        append_name = PyUnicode_InternFromString("append");
        if (array_type == NULL || append_name == NULL) {
            return -1;
        }
    }
    if (PyType_Ready(&JoinerType) < 0) {
        return -1;
    }
    Py_INCREF(&JoinerType);
    if (PyModule_AddObject(module, "Joiner", (PyObject *)&JoinerType) < 0) {
        Py_DECREF(&JoinerType);
        return -1;
    }
    return PyModule_AddIntConstant(module, "VERSION", VERSION);
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, exec_module},
    {0, NULL},
};

static struct PyModuleDef definition = {
    PyModuleDef_HEAD_INIT,
    .m_name = "generator.validate._joiner",
    .m_doc = "The union-find of generator.validate.partition, in C.",
    .m_size = 0,
    .m_slots = module_slots,
};

PyMODINIT_FUNC
PyInit__joiner(void)
{
    return PyModuleDef_Init(&definition);
}
