/* A fast reader for the block-style YAML that Kubernetes tools write (capzgen issue 29).
 *
 * load_all(text) returns the list of the documents' values, or None when the text is not in the
 * conservative subset this reader knows exactly (see generator/yamlio/block.py for the contract:
 * a value is returned only where ryaml (YAML 1.2) and go-yaml v2 (Kubernetes) read the very same
 * thing). Anything unusual, anything erroneous, anything deeper than MAX_NEST: None, and the
 * caller uses its existing parsers. Every read is bounded by explicit offsets (a line's end, the
 * document's end); nothing is recursive beyond MAX_NEST levels; every bail-out path releases what
 * was built. Python errors (memory) propagate as exceptions.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define VERSION 1
#define MAX_NEST 100       /* below generator.yamlio.limits.MAX_DEPTH (128) */
#define MAX_KEY 1000       /* simple keys are limited to 1024 characters in YAML */
#define CACHE_SLOTS 8192   /* a power of two */
#define CACHE_FILL 6000    /* stop adding beyond this many entries */
#define CACHE_LEN 48       /* longest string worth caching */

typedef struct {
    Py_ssize_t start, len;
    Py_hash_t hash;
    PyObject *obj;
} Slot;

typedef struct {
    const char *s;   /* the whole text (ASCII) */
    Py_ssize_t n;    /* its length */
    Py_ssize_t end;  /* end of the current document */
    Py_ssize_t line; /* start of the current line */
    Py_ssize_t pos;  /* first significant character of the current line (or the cursor) */
    Py_ssize_t eol;  /* end of the current line ('\n' or end) */
    Py_ssize_t col;  /* column of pos */
    int eof;         /* no significant line left in the document */
    Slot *slots;
    Py_ssize_t used;
} P;

/* --------------------------------------------------------------------------------------------
 * Strings, with a small per-call cache so that repeated keys and short values are one object. */

static PyObject *
make_str(const char *data, Py_ssize_t len)
{
    PyObject *str = PyUnicode_New(len, 127);
    if (str != NULL && len > 0) {
        memcpy(PyUnicode_1BYTE_DATA(str), data, (size_t)len);
    }
    return str;
}

static PyObject *
cached_str(P *p, Py_ssize_t start, Py_ssize_t len)
{
    const char *data = p->s + start;
    if (len > CACHE_LEN || p->slots == NULL) {
        return make_str(data, len);
    }
    Py_uhash_t h = 2166136261u;
    for (Py_ssize_t i = 0; i < len; i++) {
        h = (h ^ (unsigned char)data[i]) * 16777619u;
    }
    Py_ssize_t at = (Py_ssize_t)(h & (CACHE_SLOTS - 1));
    for (;;) {
        Slot *slot = &p->slots[at];
        if (slot->obj == NULL) {
            PyObject *str = make_str(data, len);
            if (str != NULL && p->used < CACHE_FILL) {
                slot->start = start;
                slot->len = len;
                slot->hash = (Py_hash_t)h;
                slot->obj = str;
                Py_INCREF(str);
                p->used++;
            }
            return str;
        }
        if (slot->hash == (Py_hash_t)h && slot->len == len &&
            memcmp(p->s + slot->start, data, (size_t)len) == 0) {
            Py_INCREF(slot->obj);
            return slot->obj;
        }
        at = (at + 1) & (CACHE_SLOTS - 1);
    }
}

/* --------------------------------------------------------------------------------------------
 * Lines. */

static int
is_blank_to(const char *s, Py_ssize_t from, Py_ssize_t to)
{
    for (Py_ssize_t i = from; i < to; i++) {
        if (s[i] != ' ') {
            return 0;
        }
    }
    return 1;
}

static Py_ssize_t
line_end(P *p, Py_ssize_t from)
{
    const char *found = memchr(p->s + from, '\n', (size_t)(p->end - from));
    return found == NULL ? p->end : (Py_ssize_t)(found - p->s);
}

/* Move to the first line at or after `from` that is neither blank nor a comment. */
static void
seek_line(P *p, Py_ssize_t from)
{
    while (from < p->end) {
        Py_ssize_t eol = line_end(p, from);
        Py_ssize_t i = from;
        while (i < eol && p->s[i] == ' ') {
            i++;
        }
        if (i < eol && p->s[i] != '#') {
            p->line = from;
            p->pos = i;
            p->col = i - from;
            p->eol = eol;
            p->eof = 0;
            return;
        }
        from = eol + 1;
    }
    p->eof = 1;
    p->line = p->pos = p->eol = p->end;
    p->col = 0;
}

static void
next_line(P *p)
{
    seek_line(p, p->eol + 1);
}

/* After a value that ended at q: only blanks or a comment may follow on the line. */
static int
finish_line(P *p, Py_ssize_t q)
{
    Py_ssize_t start = q;
    while (q < p->eol && p->s[q] == ' ') {
        q++;
    }
    if (q < p->eol && !(p->s[q] == '#' && q > start)) {
        return 0;
    }
    next_line(p);
    return 1;
}

static int
is_entry(P *p)
{
    Py_ssize_t i = p->pos;
    return p->s[i] == '-' && (i + 1 == p->eol || p->s[i + 1] == ' ');
}

/* End (after the closing quote) of a quoted scalar starting at q, or -1 if it is not closed on
 * its line. */
static Py_ssize_t
quoted_end(P *p, Py_ssize_t q)
{
    const char *s = p->s;
    char quote = s[q];
    Py_ssize_t i = q + 1;
    while (i < p->eol) {
        if (quote == '"' && s[i] == '\\') {
            i += 2;
        }
        else if (s[i] == quote) {
            if (quote == '\'' && i + 1 < p->eol && s[i + 1] == '\'') {
                i += 2;
            }
            else {
                return i + 1;
            }
        }
        else {
            i++;
        }
    }
    return -1;
}

/* The ':' of a plain implicit key starting at q, or -1. */
static Py_ssize_t
key_colon(P *p, Py_ssize_t q)
{
    const char *s = p->s;
    for (Py_ssize_t i = q; i < p->eol; i++) {
        if (s[i] == ':' && (i + 1 == p->eol || s[i + 1] == ' ')) {
            return i;
        }
        if (s[i] == '#' && i > q && s[i - 1] == ' ') {
            return -1;
        }
    }
    return -1;
}

static int
is_key_line(P *p)
{
    Py_ssize_t q = p->pos;
    char c = p->s[q];
    if (c == '"' || c == '\'') {
        Py_ssize_t e = quoted_end(p, q);
        return e > 0 && e < p->eol && p->s[e] == ':' && (e + 1 == p->eol || p->s[e + 1] == ' ');
    }
    if (c == '[' || c == '{') {
        return 0;
    }
    return key_colon(p, q) >= 0;
}

/* --------------------------------------------------------------------------------------------
 * Scalars. */

static int
is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int
is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
same(const char *a, Py_ssize_t len, const char *word)
{
    return (Py_ssize_t)strlen(word) == len && memcmp(a, word, (size_t)len) == 0;
}

/* 1: -?(0|[1-9][0-9]*) with at most 18 digits; 2: -?(0|[1-9][0-9]*)\.[0-9]+; 0: neither. */
static int
number_form(const char *t, Py_ssize_t len)
{
    Py_ssize_t i = t[0] == '-' ? 1 : 0;
    Py_ssize_t digits = 0;
    if (i >= len || !is_digit(t[i])) {
        return 0;
    }
    if (t[i] == '0') {
        i++;
        digits = 1;
    }
    else {
        while (i < len && is_digit(t[i])) {
            i++;
            digits++;
        }
    }
    if (i == len) {
        return digits <= 18 && !(t[0] == '-' && t[1] == '0') ? 1 : 0;
    }
    if (t[i] != '.' || i + 1 == len || len > 40) {
        return 0;
    }
    for (i++; i < len; i++) {
        if (!is_digit(t[i])) {
            return 0;
        }
    }
    return 2;
}

/* A token starting with [-.0-9] that is a string for both parsers, surely: it holds a character
 * no number form of either schema uses, or a sign inside it (not after an exponent's e), or it
 * is dotted digits like 1.31.1. Timestamps (2024-01-01) are strings for both: YAML 1.2 has none
 * and go-yaml v2 hands them to untyped targets as strings. */
static int
clearly_string(const char *t, Py_ssize_t len)
{
    int dots = 0, digits_and_dots = 1;
    if (len >= 2 && t[0] == '-' && (t[1] == '-' || is_letter(t[1]))) {
        return 1; /* --flag, -name: no int, no float, and -.inf needs its dot */
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        char c = t[i];
        if (c == '.') {
            dots++;
            continue;
        }
        if (is_digit(c)) {
            continue;
        }
        digits_and_dots = 0;
        if ((c == '-' || c == '+') && i > 0 && t[i - 1] != 'e' && t[i - 1] != 'E') {
            return 1; /* a GUID, a date */
        }
        if (strchr("_+-:abcdefABCDEFxXoOiInN", c) == NULL) {
            return 1; /* 100Mi, 33%, 10.0.0.0/16, 33000 32999 */
        }
    }
    return is_digit(t[0]) && digits_and_dots && dots >= 2; /* 10.0.0.1, 1.31.1 */
}

/* A word starting like null, true, false, yes, no, on, off: the value both schemas give it, the
 * string itself, or NULL ("not in the subset": YAML 1.1 booleans, odd casings, non-string keys). */
static PyObject *
word_value(P *p, Py_ssize_t start, Py_ssize_t len, int is_key)
{
    const char *t = p->s + start;
    char low[6];
    if (len > 5) {
        return cached_str(p, start, len);
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        low[i] = (char)(t[i] >= 'A' && t[i] <= 'Z' ? t[i] + 32 : t[i]);
    }
    low[len] = 0;
    int special = same(low, len, "null") || same(low, len, "true") || same(low, len, "false");
    if (!special && !same(low, len, "y") && !same(low, len, "n") && !same(low, len, "yes") &&
        !same(low, len, "no") && !same(low, len, "on") && !same(low, len, "off")) {
        return cached_str(p, start, len);
    }
    if (is_key || !special) {
        return NULL;
    }
    /* only three spellings of each are in both schemas: null, Null, NULL */
    int lower = memcmp(t, low, (size_t)len) == 0, upper = 1, title = t[0] >= 'A' && t[0] <= 'Z';
    for (Py_ssize_t i = 0; i < len; i++) {
        upper &= t[i] >= 'A' && t[i] <= 'Z';
        title &= i == 0 || (t[i] >= 'a' && t[i] <= 'z');
    }
    if (!(lower || upper || title)) {
        return NULL;
    }
    if (low[0] == 'n') {
        Py_RETURN_NONE;
    }
    return PyBool_FromLong(low[0] == 't');
}

/* A token starting with [-.0-9]: an int, a float, a string, or NULL when unsure. */
static PyObject *
number_value(P *p, Py_ssize_t start, Py_ssize_t len, int is_key)
{
    const char *t = p->s + start;
    int form = number_form(t, len);
    if (form != 0 && is_key) {
        return NULL;
    }
    if (form == 1) {
        long long value = 0;
        for (Py_ssize_t i = t[0] == '-' ? 1 : 0; i < len; i++) {
            value = value * 10 + (t[i] - '0'); /* at most 18 digits: no overflow */
        }
        return PyLong_FromLongLong(t[0] == '-' ? -value : value);
    }
    if (form == 2) {
        char buf[48]; /* number_form allows at most 40 characters */
        memcpy(buf, t, (size_t)len);
        buf[len] = 0;
        double value = PyOS_string_to_double(buf, NULL, NULL); /* correctly rounded */
        if (value == -1.0 && PyErr_Occurred()) {
            return NULL;
        }
        return PyFloat_FromDouble(value);
    }
    return clearly_string(t, len) ? cached_str(p, start, len) : NULL;
}

/* A plain scalar's value: NULL without an exception means "not in the subset". */
static PyObject *
plain_value(P *p, Py_ssize_t start, Py_ssize_t len, int is_key)
{
    const char *t = p->s + start;
    char c = t[0];
    if (len == 1 && c == '~') {
        if (is_key) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    if (strchr("nNtTfFyYoO", c) != NULL) {
        return word_value(p, start, len, is_key);
    }
    if (c == '+' || (c == '<' && len >= 2 && t[1] == '<')) {
        return NULL; /* signs, merge keys */
    }
    if (c == '-' || c == '.' || is_digit(c)) {
        return number_value(p, start, len, is_key);
    }
    return cached_str(p, start, len);
}

static int
is_indicator(char c)
{
    return strchr("-?:,[]{}#&*!|>'\"%@`", c) != NULL;
}

/* A plain scalar in block context from q on the current line; -1 if not in the subset. */
static Py_ssize_t
plain_end(P *p, Py_ssize_t q)
{
    const char *s = p->s;
    Py_ssize_t i = q;
    for (; i < p->eol; i++) {
        if (s[i] == ':' && (i + 1 == p->eol || s[i + 1] == ' ')) {
            return -1;
        }
        if (s[i] == '#' && s[i - 1] == ' ') {
            break;
        }
    }
    while (i > q && s[i - 1] == ' ') {
        i--;
    }
    return i;
}

static int
hex_value(char c)
{
    if (is_digit(c)) {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* A quoted scalar from q (its quote) to e (after its closing quote). */
static PyObject *
quoted_value(P *p, Py_ssize_t q, Py_ssize_t e)
{
    const char *s = p->s;
    Py_ssize_t len = e - q - 2;
    char *buf = PyMem_Malloc((size_t)len + 1);
    Py_ssize_t out = 0;
    if (buf == NULL) {
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = q + 1; i < e - 1; i++) {
        char c = s[i];
        if (s[q] == '\'') {
            if (c == '\'') {
                i++; /* '' is one quote */
            }
            buf[out++] = c;
            continue;
        }
        if (c != '\\') {
            buf[out++] = c;
            continue;
        }
        char esc = s[++i];
        int code = -1;
        switch (esc) {
        case '"': case '\\': case '/': code = esc; break;
        case 'n': code = '\n'; break;
        case 't': code = '\t'; break;
        case 'r': code = '\r'; break;
        case '0': code = 0; break;
        case 'u':
            if (i + 4 < e - 1) {
                int d0 = hex_value(s[i + 1]), d1 = hex_value(s[i + 2]);
                int d2 = hex_value(s[i + 3]), d3 = hex_value(s[i + 4]);
                if (d0 == 0 && d1 == 0 && d2 >= 0 && d2 < 8 && d3 >= 0) {
                    code = d2 * 16 + d3;
                    i += 4;
                }
            }
            break;
        default: break;
        }
        if (code < 0) {
            PyMem_Free(buf);
            return NULL;
        }
        buf[out++] = (char)code;
    }
    PyObject *str = make_str(buf, out);
    PyMem_Free(buf);
    return str;
}

/* --------------------------------------------------------------------------------------------
 * Flow collections on one line: [a, "b", [c]], {a: 1, b: {c: d}}. */

static PyObject *flow_value(P *p, Py_ssize_t *at, int depth);

/* A key or an entry of a flow collection at *at (a nested collection only as an entry). */
static PyObject *
flow_scalar(P *p, Py_ssize_t *at, int is_key, int depth)
{
    const char *s = p->s;
    Py_ssize_t q = *at;
    if (!is_key && (s[q] == '[' || s[q] == '{')) {
        return flow_value(p, at, depth + 1);
    }
    if (s[q] == '"' || s[q] == '\'') {
        Py_ssize_t e = quoted_end(p, q);
        if (e < 0) {
            return NULL;
        }
        if (is_key && e - q > MAX_KEY) {
            return NULL;
        }
        *at = e;
        return quoted_value(p, q, e);
    }
    if (is_indicator(s[q]) || s[q] == ' ') {
        return NULL;
    }
    Py_ssize_t i = q;
    while (i < p->eol && strchr(",[]{}:#", s[i]) == NULL) {
        i++;
    }
    if (is_key ? (i == p->eol || s[i] != ':') : (i < p->eol && (s[i] == ':' || s[i] == '#'))) {
        return NULL;
    }
    if (is_key && i - q > MAX_KEY) {
        return NULL;
    }
    *at = i;
    while (i > q && s[i - 1] == ' ') {
        i--;
    }
    return plain_value(p, q, i - q, is_key);
}

static Py_ssize_t
skip_spaces(P *p, Py_ssize_t q)
{
    while (q < p->eol && p->s[q] == ' ') {
        q++;
    }
    return q;
}

/* One entry of a flow collection at *q (a key, ": " and a value in a mapping); -1 when not in
 * the subset, 0 when added. */
static int
flow_entry(P *p, PyObject *coll, Py_ssize_t *q, int depth)
{
    const char *s = p->s;
    PyObject *key = NULL, *item;
    int bad;
    if (PyDict_Check(coll)) {
        key = flow_scalar(p, q, 1, depth);
        if (key == NULL || !PyUnicode_Check(key) || *q + 1 >= p->eol || s[*q] != ':' ||
            s[*q + 1] != ' ' || (*q = skip_spaces(p, *q + 1)) >= p->eol) {
            Py_XDECREF(key);
            return -1;
        }
    }
    item = flow_scalar(p, q, 0, depth);
    if (item == NULL) {
        Py_XDECREF(key);
        return -1;
    }
    if (key != NULL) {
        Py_ssize_t before = PyDict_GET_SIZE(coll);
        bad = PyDict_SetItem(coll, key, item) < 0 || PyDict_GET_SIZE(coll) == before;
        Py_DECREF(key);
    }
    else {
        bad = PyList_Append(coll, item) < 0;
    }
    Py_DECREF(item);
    return bad ? -1 : 0;
}

/* The flow collection starting at *at; *at moves past its closing bracket. */
static PyObject *
flow_value(P *p, Py_ssize_t *at, int depth)
{
    const char *s = p->s;
    char close = s[*at] == '{' ? '}' : ']';
    if (depth > MAX_NEST) {
        return NULL;
    }
    PyObject *coll = close == '}' ? PyDict_New() : PyList_New(0);
    Py_ssize_t q = skip_spaces(p, *at + 1);
    if (coll == NULL) {
        return NULL;
    }
    if (q < p->eol && s[q] == close) {
        *at = q + 1;
        return coll;
    }
    for (;;) {
        if (q >= p->eol || flow_entry(p, coll, &q, depth) < 0) {
            break;
        }
        q = skip_spaces(p, q);
        if (q < p->eol && s[q] == close) {
            *at = q + 1;
            return coll;
        }
        if (q >= p->eol || s[q] != ',') {
            break;
        }
        q = skip_spaces(p, q + 1);
        if (q < p->eol && s[q] == close) {
            break; /* a trailing comma: leave it to the full parsers */
        }
    }
    Py_DECREF(coll);
    return NULL;
}

/* --------------------------------------------------------------------------------------------
 * Block literals: | |- |+ (no indentation indicator, no folding). */

typedef struct {
    Py_ssize_t from;         /* first line after the header */
    Py_ssize_t stop;         /* first line after the region */
    Py_ssize_t indent;       /* content indentation, -1 when there is no content */
    Py_ssize_t last_content; /* end of the last content line, -1 when none */
    Py_ssize_t trailing;     /* blank lines after it */
    Py_ssize_t size;         /* characters of the content with its inner line breaks */
} Region;

/* The lines of a literal: blank, or indented at least as its first non-blank one (which must be
 * deeper than the parent). 0 when they are not in the subset. */
static int
literal_region(P *p, Py_ssize_t parent, Region *r)
{
    const char *s = p->s;
    Py_ssize_t at = p->eol + 1, widest = 0;
    r->from = at;
    r->indent = r->last_content = -1;
    r->trailing = r->size = 0;
    while (at < p->end) {
        Py_ssize_t eol = line_end(p, at), i = at;
        while (i < eol && s[i] == ' ') {
            i++;
        }
        if (i == eol) {
            widest = i - at > widest ? i - at : widest;
            r->trailing++;
        }
        else {
            if (r->indent < 0 && i - at <= parent) {
                break; /* no content at all */
            }
            r->indent = r->indent < 0 ? i - at : r->indent;
            if (i - at < r->indent) {
                break;
            }
            r->last_content = eol;
            r->size += eol - at - r->indent + 1 + r->trailing;
            r->trailing = 0;
        }
        if (eol == p->n) {
            return 0; /* no final line break: leave the edge cases to the parsers */
        }
        at = eol + 1;
    }
    r->stop = at;
    /* a blank line wider than the content's indentation holds spaces: leave it to the parsers */
    return widest <= (r->indent < 0 ? parent : r->indent);
}

static PyObject *
literal_value(P *p, Py_ssize_t q, Py_ssize_t parent)
{
    const char *s = p->s;
    char chomp = 0;
    Region r;
    q++;
    if (q < p->eol && (s[q] == '-' || s[q] == '+')) {
        chomp = s[q++];
    }
    if (q < p->eol && s[q] != ' ') {
        return NULL; /* an indentation indicator, or anything else */
    }
    q = skip_spaces(p, q);
    if ((q < p->eol && s[q] != '#') || p->eol == p->n || !literal_region(p, parent, &r) ||
        (r.indent < 0 && chomp == '+')) {
        return NULL;
    }
    Py_ssize_t size = r.size + (chomp == '+' ? r.trailing : 0) - (chomp == '-' && r.size > 0);
    PyObject *str = PyUnicode_New(size, 127);
    if (str == NULL) {
        return NULL;
    }
    char *out = (char *)PyUnicode_1BYTE_DATA(str), *stop = out + size;
    for (Py_ssize_t line = r.from; line <= r.last_content && out < stop;) {
        Py_ssize_t eol = line_end(p, line);
        if (!is_blank_to(s, line, eol)) {
            Py_ssize_t len = eol - line - r.indent;
            len = len < stop - out ? len : stop - out;
            memcpy(out, s + line + r.indent, (size_t)len);
            out += len;
        }
        if (out < stop) {
            *out++ = '\n';
        }
        line = eol + 1;
    }
    while (out < stop) {
        *out++ = '\n';
    }
    seek_line(p, r.stop);
    if (!p->eof && p->col > parent) {
        Py_DECREF(str);
        return NULL;
    }
    return str;
}

/* --------------------------------------------------------------------------------------------
 * Block nodes. */

static PyObject *block_node(P *p, Py_ssize_t parent, int depth);

/* A value written on the current line from q; moves to the next line. */
static PyObject *
inline_value(P *p, Py_ssize_t q, Py_ssize_t parent, int depth)
{
    const char *s = p->s;
    char c = s[q];
    PyObject *value;
    Py_ssize_t e;
    if (c == '"' || c == '\'') {
        e = quoted_end(p, q);
        if (e < 0) {
            return NULL;
        }
        value = quoted_value(p, q, e);
    }
    else if (c == '[' || c == '{') {
        e = q;
        value = flow_value(p, &e, depth);
    }
    else if (c == '|') {
        return literal_value(p, q, parent);
    }
    else {
        if (is_indicator(c) && !(c == '-' && q + 1 < p->eol && s[q + 1] != ' ')) {
            return NULL;
        }
        e = plain_end(p, q);
        if (e < 0) {
            return NULL;
        }
        value = plain_value(p, q, e - q, 0);
    }
    if (value != NULL && !finish_line(p, e)) {
        Py_CLEAR(value);
    }
    return value;
}

/* The value after "key:" or "-" when nothing follows on the line. */
static PyObject *
value_below(P *p, Py_ssize_t indent, int depth, int in_map)
{
    next_line(p);
    if (!p->eof && p->col > indent) {
        return block_node(p, indent, depth);
    }
    if (in_map && !p->eof && p->col == indent && is_entry(p)) {
        return block_node(p, indent - 1, depth); /* key:\n- a (the sequence at the key's column) */
    }
    Py_RETURN_NONE;
}

static PyObject *
map_key(P *p, Py_ssize_t *after)
{
    const char *s = p->s;
    Py_ssize_t q = p->pos;
    if (s[q] == '"' || s[q] == '\'') {
        Py_ssize_t e = quoted_end(p, q);
        if (e < 0 || e >= p->eol || s[e] != ':' || e - q > MAX_KEY) {
            return NULL;
        }
        *after = e + 1;
        return quoted_value(p, q, e);
    }
    if (is_indicator(s[q])) {
        return NULL;
    }
    Py_ssize_t colon = key_colon(p, q);
    if (colon < 0 || colon - q > MAX_KEY || s[colon - 1] == ' ') {
        return NULL;
    }
    *after = colon + 1;
    PyObject *key = plain_value(p, q, colon - q, 1);
    if (key != NULL && !PyUnicode_Check(key)) {
        Py_CLEAR(key);
    }
    return key;
}

static PyObject *
block_map(P *p, Py_ssize_t indent, int depth)
{
    PyObject *map = PyDict_New();
    if (map == NULL) {
        return NULL;
    }
    for (;;) {
        Py_ssize_t q = 0;
        PyObject *key = map_key(p, &q), *value;
        if (key == NULL) {
            goto fail;
        }
        if (q < p->eol && p->s[q] != ' ') {
            Py_DECREF(key);
            goto fail;
        }
        q = skip_spaces(p, q);
        if (q == p->eol || p->s[q] == '#') {
            value = value_below(p, indent, depth + 1, 1);
        }
        else if (p->s[q] == '-' && (q + 1 == p->eol || p->s[q + 1] == ' ')) {
            value = NULL;
        }
        else {
            value = inline_value(p, q, indent, depth + 1);
        }
        if (value == NULL) {
            Py_DECREF(key);
            goto fail;
        }
        Py_ssize_t before = PyDict_GET_SIZE(map);
        int bad = PyDict_SetItem(map, key, value) < 0 || PyDict_GET_SIZE(map) == before;
        Py_DECREF(key);
        Py_DECREF(value);
        if (bad) {
            goto fail; /* duplicate key (or no memory) */
        }
        if (p->eof || p->col < indent) {
            return map;
        }
        if (p->col > indent || is_entry(p)) {
            goto fail;
        }
    }
fail:
    Py_DECREF(map);
    return NULL;
}

static PyObject *
block_seq(P *p, Py_ssize_t indent, int depth)
{
    PyObject *seq = PyList_New(0);
    if (seq == NULL) {
        return NULL;
    }
    while (!p->eof && p->col == indent && is_entry(p)) {
        Py_ssize_t q = skip_spaces(p, p->pos + 1);
        PyObject *item;
        if (q == p->eol || p->s[q] == '#') {
            item = value_below(p, indent, depth + 1, 0);
        }
        else {
            p->pos = q;
            p->col = q - p->line;
            item = block_node(p, indent, depth + 1);
        }
        if (item == NULL) {
            goto fail;
        }
        int bad = PyList_Append(seq, item) < 0;
        Py_DECREF(item);
        if (bad || (!p->eof && p->col > indent)) {
            goto fail;
        }
    }
    return seq;
fail:
    Py_DECREF(seq);
    return NULL;
}

/* The node starting at the cursor (column p->col, inside a parent at column `parent`). */
static PyObject *
block_node(P *p, Py_ssize_t parent, int depth)
{
    if (depth > MAX_NEST) {
        return NULL;
    }
    if (is_entry(p)) {
        return block_seq(p, p->col, depth);
    }
    if (is_key_line(p)) {
        return block_map(p, p->col, depth);
    }
    return inline_value(p, p->pos, parent, depth);
}

/* --------------------------------------------------------------------------------------------
 * Documents. */

static int
text_in_subset(const char *s, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\n') || c == 0x7f) {
            return 0;
        }
        if ((i == 0 || s[i - 1] == '\n') &&
            (c == '%' || (c == '.' && i + 2 < n && s[i + 1] == '.' && s[i + 2] == '.'))) {
            return 0;
        }
    }
    return 1;
}

/* Whether the line at `at` is a "---" separator; -1 if it starts with "---" but is not one of
 * the plain ones. */
static int
separator(const char *s, Py_ssize_t n, Py_ssize_t at)
{
    if (at + 3 > n || memcmp(s + at, "---", 3) != 0) {
        return 0;
    }
    const char *found = memchr(s + at, '\n', (size_t)(n - at));
    Py_ssize_t eol = found == NULL ? n : (Py_ssize_t)(found - s), q = at + 3;
    if (q < eol && s[q] != ' ') {
        return -1;
    }
    while (q < eol && s[q] == ' ') {
        q++;
    }
    return q == eol || s[q] == '#' ? 1 : -1;
}

/* The document in [from, end): None when empty; NULL when not in the subset. */
static PyObject *
document(P *p, Py_ssize_t from, Py_ssize_t end)
{
    p->end = end;
    seek_line(p, from);
    if (p->eof) {
        Py_RETURN_NONE;
    }
    if (!is_entry(p) && !is_key_line(p)) {
        return NULL; /* a scalar or flow document: rare, left to the parsers */
    }
    PyObject *root = block_node(p, -1, 1);
    if (root != NULL && !p->eof) {
        Py_CLEAR(root);
    }
    return root;
}

static int
add_document(P *p, PyObject *docs, Py_ssize_t from, Py_ssize_t end)
{
    PyObject *doc = document(p, from, end);
    if (doc == NULL) {
        return -1;
    }
    int rc = PyList_Append(docs, doc);
    Py_DECREF(doc);
    return rc;
}

static PyObject *
load_text(P *p)
{
    const char *s = p->s;
    Py_ssize_t n = p->n, from = 0, at = 0;
    int implicit = 1; /* the text before the first separator counts only if it has content */
    PyObject *docs = PyList_New(0);
    if (docs == NULL) {
        return NULL;
    }
    while (at <= n) {
        int sep = at < n ? separator(s, n, at) : 0;
        if (sep < 0) {
            goto fail;
        }
        if (sep > 0 || at == n) {
            p->end = at;
            seek_line(p, from);
            if ((!implicit || !p->eof) && add_document(p, docs, from, at) < 0) {
                goto fail;
            }
            implicit = 0;
            if (at == n) {
                break;
            }
            const char *found = memchr(s + at, '\n', (size_t)(n - at));
            from = found == NULL ? n : (Py_ssize_t)(found - s) + 1;
            at = from;
            continue;
        }
        const char *found = memchr(s + at, '\n', (size_t)(n - at));
        at = found == NULL ? n : (Py_ssize_t)(found - s) + 1;
    }
    if (PyList_GET_SIZE(docs) == 0) {
        goto fail; /* ryaml reads no document as None, not []: not worth a special case */
    }
    return docs;
fail:
    Py_DECREF(docs);
    return NULL;
}

static PyObject *
load_all(PyObject *module, PyObject *text)
{
    (void)module;
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "load_all() expects a str");
        return NULL;
    }
    if (!PyUnicode_IS_ASCII(text)) {
        Py_RETURN_NONE;
    }
    P p;
    memset(&p, 0, sizeof p);
    p.s = (const char *)PyUnicode_1BYTE_DATA(text);
    p.n = PyUnicode_GET_LENGTH(text);
    if (!text_in_subset(p.s, p.n)) {
        Py_RETURN_NONE;
    }
    p.slots = PyMem_Calloc(CACHE_SLOTS, sizeof(Slot));
    if (p.slots == NULL) {
        return PyErr_NoMemory();
    }
    PyObject *docs = load_text(&p);
    for (Py_ssize_t i = 0; i < CACHE_SLOTS; i++) {
        Py_XDECREF(p.slots[i].obj);
    }
    PyMem_Free(p.slots);
    if (docs == NULL && !PyErr_Occurred()) {
        Py_RETURN_NONE;
    }
    return docs;
}

/* --------------------------------------------------------------------------------------------
 * Cutting a text at its "---" lines, and finding a control byte: what the parent of a -j N run
 * does to the whole input before its workers get their first piece (generator.yamlio.chunks,
 * generator.yamlio.source), in one pass each and without a copy of the text. */

/* Whether the "---" line of kind/data starting at `at` (its end at `eol`) has at most a comment
 * after the dashes: nothing but spaces, tabs and carriage returns, or a space or tab first and
 * then, past those, a '#' (generator.yamlio.load._checked_line_ends says the same in Python). */
static int
separator_ok(int kind, const void *data, Py_ssize_t at, Py_ssize_t eol)
{
    Py_ssize_t i = at + 3;
    Py_ssize_t first = -1;
    for (Py_ssize_t j = i; j < eol; j++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, j);
        if (c != ' ' && c != '\t' && c != '\r') {
            first = j;
            break;
        }
    }
    if (first < 0) {
        return 1;
    }
    Py_UCS4 after = PyUnicode_READ(kind, data, i);
    return (after == ' ' || after == '\t') && PyUnicode_READ(kind, data, first) == '#';
}

/* 1: kind/data[at:eol] is a '---' line with at most a comment after it; 0: it is no '---'
 * line; -1: a '---' line with more after it (an error the Python path raises, with its place). */
static int
separator_line(int kind, const void *data, Py_ssize_t at, Py_ssize_t eol)
{
    if (eol - at < 3 || PyUnicode_READ(kind, data, at) != '-' ||
        PyUnicode_READ(kind, data, at + 1) != '-' || PyUnicode_READ(kind, data, at + 2) != '-') {
        return 0;
    }
    return separator_ok(kind, data, at, eol) ? 1 : -1;
}

/* The text of a str argument, or -1 with a TypeError. */
static int
text_of(PyObject *text, const char *function, int *kind, const void **data, Py_ssize_t *n)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "%s() takes a str", function);
        return -1;
    }
    *kind = PyUnicode_KIND(text);
    *data = PyUnicode_DATA(text);
    *n = PyUnicode_GET_LENGTH(text);
    return 0;
}

static Py_ssize_t
text_line_end(int kind, const void *data, Py_ssize_t from, Py_ssize_t n)
{
    if (kind == PyUnicode_1BYTE_KIND) {
        const char *found = memchr((const char *)data + from, '\n', (size_t)(n - from));
        return found == NULL ? n : found - (const char *)data;
    }
    while (from < n && PyUnicode_READ(kind, data, from) != '\n') {
        from++;
    }
    return from;
}

static int
add_span(PyObject *list, Py_ssize_t start, Py_ssize_t end, Py_ssize_t line)
{
    PyObject *span = Py_BuildValue("(nnn)", start, end, line);
    if (span == NULL) {
        return -1;
    }
    int failed = PyList_Append(list, span);
    Py_DECREF(span);
    return failed;
}

static PyObject *
spans(PyObject *self, PyObject *text)
{
    int kind;
    const void *data;
    Py_ssize_t n;
    if (text_of(text, "spans", &kind, &data, &n) < 0) {
        return NULL;
    }
    PyObject *found = PyList_New(0);
    if (found == NULL) {
        return NULL;
    }
    Py_ssize_t start = 0, start_line = 1, line = 1, at = 0;
    while (at < n) {
        Py_ssize_t eol = text_line_end(kind, data, at, n);
        int separator = separator_line(kind, data, at, eol);
        if (separator < 0) {
            Py_DECREF(found);
            Py_RETURN_NONE; /* the Python path raises the error, with its place */
        }
        if (separator) {
            if (at > start && add_span(found, start, at, start_line) < 0) {
                Py_DECREF(found);
                return NULL;
            }
            start = at;
            start_line = line;
        }
        at = eol + 1;
        line++;
    }
    if (n > start && add_span(found, start, n, start_line) < 0) {
        Py_DECREF(found);
        return NULL;
    }
    return found;
}

static int
append_size(PyObject *list, Py_ssize_t value)
{
    PyObject *number = PyLong_FromSsize_t(value);
    if (number == NULL) {
        return -1;
    }
    int failed = PyList_Append(list, number);
    Py_DECREF(number);
    return failed;
}

/* Whether the line kind/data[at:eol] has content: its first character past spaces and tabs is
 * there and is neither '#' nor a carriage return (load.py's _first_content_line). */
static int
has_content(int kind, const void *data, Py_ssize_t at, Py_ssize_t eol)
{
    while (at < eol) {
        Py_UCS4 c = PyUnicode_READ(kind, data, at);
        if (c != ' ' && c != '\t') {
            return c != '#' && c != '\r';
        }
        at++;
    }
    return 0;
}

/* load.py's layout(): the offsets of the '---' lines and the first content line of every
 * document (its '---' line where it has none; a document before the first '---' only where it
 * has one), or None when a '---' line has more than a comment after it. */
static PyObject *
layout(PyObject *self, PyObject *text)
{
    int kind;
    const void *data;
    Py_ssize_t n;
    if (text_of(text, "layout", &kind, &data, &n) < 0) {
        return NULL;
    }
    PyObject *separators = PyList_New(0);
    PyObject *starts = PyList_New(0);
    if (separators == NULL || starts == NULL) {
        goto failed;
    }
    int seeking = 1, implicit = 1;
    Py_ssize_t line = 1, at = 0, document_line = 0;
    while (at < n) {
        Py_ssize_t eol = text_line_end(kind, data, at, n);
        int separator = separator_line(kind, data, at, eol);
        if (separator < 0) {
            Py_DECREF(separators);
            Py_DECREF(starts);
            Py_RETURN_NONE;
        }
        if (separator) {
            if (seeking && !implicit && append_size(starts, document_line) < 0) {
                goto failed;
            }
            if (append_size(separators, at) < 0) {
                goto failed;
            }
            seeking = 1;
            implicit = 0;
            document_line = line;
        } else if (seeking && has_content(kind, data, at, eol)) {
            if (append_size(starts, line) < 0) {
                goto failed;
            }
            seeking = 0;
        }
        at = eol + 1;
        line++;
    }
    if (seeking && !implicit && append_size(starts, document_line) < 0) {
        goto failed;
    }
    PyObject *both = PyTuple_Pack(2, separators, starts);
    Py_DECREF(separators);
    Py_DECREF(starts);
    return both;
failed:
    Py_XDECREF(separators);
    Py_XDECREF(starts);
    return NULL;
}

/* The C0 controls other than tab, line feed and carriage return, and DEL (source.py's
 * _CONTROL_BYTES). */
static int
is_control(unsigned char c)
{
    return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
}

static unsigned char CONTROL[256];

static PyObject *
first_control(PyObject *self, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    const unsigned char *bytes = view.buf;
    Py_ssize_t i = 0, found = -1;
    /* blocks without a branch per byte (text has no control byte, as a rule), then the exact
     * place byte by byte from the block that has one */
    for (; i + 64 <= view.len; i += 64) {
        unsigned char any = 0;
        for (int k = 0; k < 64; k++) {
            any |= CONTROL[bytes[i + k]];
        }
        if (any) {
            break;
        }
    }
    for (; i < view.len; i++) {
        if (CONTROL[bytes[i]]) {
            found = i;
            break;
        }
    }
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(found);
}

static PyMethodDef methods[] = {
    {"load_all", load_all, METH_O,
     "load_all(text, /)\n--\n\nThe documents of a block-style YAML text, or None when the text is "
     "not in the subset this reader knows exactly."},
    {"spans", spans, METH_O,
     "spans(text, /)\n--\n\n(start, end, first line) of the text between its '---' lines, or "
     "None when a '---' line has more than a comment after it."},
    {"layout", layout, METH_O,
     "layout(text, /)\n--\n\n(offsets of the '---' lines, first content line of every document), "
     "or None when a '---' line has more than a comment after it."},
    {"first_control", first_control, METH_O,
     "first_control(data, /)\n--\n\nThe offset of the first C0 control byte other than tab, "
     "line feed and carriage return (or DEL) in data, or -1."},
    {NULL, NULL, 0, NULL},
};

static int
exec_module(PyObject *module)
{
    for (int c = 0; c < 256; c++) {
        CONTROL[c] = (unsigned char)is_control((unsigned char)c);
    }
    return PyModule_AddIntConstant(module, "VERSION", VERSION);
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, exec_module},
    {0, NULL},
};

static struct PyModuleDef definition = {
    PyModuleDef_HEAD_INIT,
    "_blockyaml",
    "A fast reader for block-style YAML (see generator/yamlio/block.py).",
    0,
    methods,
    module_slots,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit__blockyaml(void)
{
    return PyModuleDef_Init(&definition);
}
