#!/usr/bin/env python3
"""What the two store backends must agree on, read from both sources
(issue25.6): the keys and their order of each record's JSON (SQLite's
json_object in the C sources, PostgreSQL's json_build_object in
schema/postgres/), the enumerations and defaults of the CHECK constraints
against the C lists they mirror, and the names that pass between the C code
and the PostgreSQL functions (the event object, the refusals, the NOTIFY
channel), and the tables and columns both have. A definition is found by its name wherever it lives under src/ and
include/, so that files may move. Prints one line per failed check and
"backends_agree: N passed, M failed"; exits 1 on a failure.

  test/backends_agree.py [ROOT]   (ROOT: the repository, by default ..)
"""
import glob
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
passed = 0
failed = 0


def check(name, got, want):
    global passed, failed
    if got == want:
        passed += 1
    else:
        failed += 1
        print(f"FAIL [backends_agree] issue25.6: {name}: {got!r} != {want!r}")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


C_FILES = sorted(glob.glob(os.path.join(ROOT, "src/**/*.[ch]"), recursive=True) +
                 glob.glob(os.path.join(ROOT, "include/**/*.h"), recursive=True))
C_TEXT = {p: read(p) for p in C_FILES}


def c_sources(pg):
    """The C files of one backend (pg: those under a pg/ folder)."""
    return {p: t for p, t in C_TEXT.items() if ("/pg/" in p) == pg}


def macro(name, pg=False):
    """The body of #define NAME in the backend's C files, its lines joined,
    the C string quotes dropped: the SQL as the compiler pastes it, but for
    the macros it names."""
    pat = re.compile(r"^#define " + name + r"\b(?:\([^)]*\))?((?:.*\\\n)*.*)$", re.M)
    for p, t in c_sources(pg).items():
        m = pat.search(t)
        if m:
            return m.group(1).replace("\\\n", " ").replace('"', "")
    raise SystemExit(f"backends_agree: no #define {name} in the C sources")


def c_string_macro(name):
    """The value of #define NAME "text" anywhere in the C headers."""
    for t in C_TEXT.values():
        m = re.search(r"^#define " + name + r'\s+"([^"]*)"', t, re.M)
        if m:
            return m.group(1)
    raise SystemExit(f"backends_agree: no #define {name} \"...\"")


def c_function(name):
    """The text of C function NAME's body (to its first line of a lone })."""
    for t in C_TEXT.values():
        m = re.search(r"^[^\n;]*\b" + name + r"\([^;{]*\)\s*\{\n(.*?)^\}", t, re.M | re.S)
        if m:
            return m.group(1)
    raise SystemExit(f"backends_agree: no function {name}")


def c_array(name):
    """The strings of a C array of strings NAME, macros resolved."""
    for t in C_TEXT.values():
        m = re.search(r"\b" + name + r"\[[^\]]*\]\s*=\s*\{([^}]*)\}", t)
        if m:
            out = []
            for item in split_args(m.group(1)):
                item = item.strip()
                if item.startswith('"'):
                    out.append(item.strip('"'))
                elif item and item != "NULL":
                    out.append(c_string_macro(item))
            return out
    raise SystemExit(f"backends_agree: no array {name}")


def split_args(text):
    """text split at its commas outside parentheses and quotes."""
    args, depth, quote, cur = [], 0, None, ""
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(cur)
            cur = ""
            continue
        cur += ch
    args.append(cur)
    return args


def call_args(text, fn):
    """The arguments of the first call fn(...) in text."""
    m = re.search(r"\b" + fn + r"\s*\(", text)
    if not m:
        raise SystemExit(f"backends_agree: no {fn}( in {text[:80]!r}")
    i, depth, quote = m.end(), 1, None
    for j in range(i, len(text)):
        ch = text[j]
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return split_args(text[i:j])
    raise SystemExit(f"backends_agree: unbalanced {fn}(")


def object_keys(text, fn):
    """The keys, in order, of the first fn('key', value, ...) in text."""
    keys = []
    for a in call_args(text, fn)[0::2]:
        a = a.strip()
        keys.append(a[1:-1] if a[:1] in "'\"" and a[-1:] == a[:1] else "?" + a)
    return keys


PG_SCHEMA = sorted(glob.glob(os.path.join(ROOT, "schema/postgres/*.sql")))
SQLITE_SCHEMA = sorted(glob.glob(os.path.join(ROOT, "schema/*.sql")))
PG_SQL = "\n".join(read(p) for p in PG_SCHEMA)
SQLITE_SQL = "\n".join(read(p) for p in SQLITE_SCHEMA)


def pg_function(name):
    """The body of the last CREATE [OR REPLACE] FUNCTION name in the
    PostgreSQL migrations (a later version replaces an earlier one)."""
    body = None
    for m in re.finditer(r"CREATE (?:OR REPLACE )?FUNCTION " + name + r"\(.*?\$\$(.*?)\$\$",
                         PG_SQL, re.S):
        body = m.group(1)
    if body is None:
        raise SystemExit(f"backends_agree: no function {name} in schema/postgres/")
    return body


# ---- the records: SQLite's definition (a C macro) and PostgreSQL's ----
RECORDS = [
    ("user", macro("USER_RECORD"), pg_function("edgeauth_user_json")),
    ("role", macro("ROLE_JSON"), pg_function("edgeauth_role_json")),
    ("resource", macro("RESOURCE_JSON"), pg_function("edgeauth_resource_json")),
    ("permission", macro("PERMISSION_JSON"), pg_function("edgeauth_resource_permissions")),
    ("client", macro("CLIENT_JSON"), pg_function("edgeauth_client_json")),
    ("event", macro("SQL_EVENT_RECORD"), pg_function("edgeauth_event_json")),
]
for name, sqlite_def, pg_def in RECORDS:
    check(f"the {name} record's keys (SQLite json_object vs PostgreSQL json_build_object)",
          object_keys(sqlite_def, "json_object"), object_keys(pg_def, "json_build_object"))

# A project of the CLI's list: SQLite's json_pack, PostgreSQL's statement.
sqlite_project = call_args(c_function("project_list"), "json_pack")[1::2]
check("a project's keys (SQLite project_list's json_pack vs pg_projects.c's json_build_object)",
      [k.strip().strip('"') for k in sqlite_project],
      object_keys(re.sub(r'"\s+"', "", next(t for p, t in c_sources(True).items()
                                             if p.endswith("pg_projects.c"))), "json_build_object"))

# A user by external ID gets "permissions" last, spliced into the record's
# text on both backends.
check("SQLite adds \"permissions\" to a user's record",
      ',\\"permissions\\":' in "".join(C_TEXT.values()), True)
check("PostgreSQL adds \"permissions\" to a user's record",
      ",\"permissions\":'" in pg_function("edgeauth_user_with_permissions"), True)

# ---- the event: the C object PostgreSQL's edgeauth_event reads, the columns ----
pg_event_keys = [k.strip().strip('"') for k in call_args(c_function("pg_event_object"),
                                                         "json_pack")[1::2]]
read_keys = sorted(set(re.findall(r"p_event->>'(\w+)'", pg_function("edgeauth_event"))))
check("the keys of pg_event_object's JSON vs those edgeauth_event reads",
      sorted(pg_event_keys), read_keys)
sqlite_event_columns = [c.strip() for c in call_args(macro("SQL_EVENT_INSERT"), "events")]
pg_event_columns = [c.strip() for c in call_args(pg_function("edgeauth_event"), "INSERT INTO events")]
check("the columns an event is inserted with (SQL_EVENT_INSERT vs edgeauth_event)",
      sqlite_event_columns, pg_event_columns)
check("pg_event_object's keys are the event's columns but time",
      pg_event_keys, [c for c in pg_event_columns if c != "time"])
check("an event's default outcome (EVENT_SUCCESS vs edgeauth_event)",
      re.search(r"coalesce\(p_event->>'outcome', '(\w+)'\)", pg_function("edgeauth_event")).group(1),
      c_string_macro("EVENT_SUCCESS"))


# ---- the enumerations and defaults of CHECK constraints ----
def check_lists(sql, subjects):
    """Every CHECK (subject IN ('...')) of sql, subject a column or a domain's
    VALUE (CREATE DOMAIN subject), as sets. Lists of text only: a passkey's
    alg is a COSE number (schema/021_passkeys.sql), not a signing key's."""
    out = []
    for s in subjects:
        for m in re.finditer(r"\b" + s + r"\s+IN\s*\(('[^)]*)\)", sql):
            out.append(sorted(v.strip().strip("'") for v in m.group(1).split(",")))
        for m in re.finditer(r"CREATE DOMAIN " + s + r"\b[^;]*?VALUE IN\s*\(([^)]*)\)", sql, re.S):
            out.append(sorted(v.strip().strip("'") for v in m.group(1).split(",")))
    return out


ENUMS = [
    ("token_endpoint_auth_method", c_array("auth_methods"),
     ["token_endpoint_auth_method"], ["token_endpoint_auth_method", "edgeauth_auth_method"]),
    ("id_token_signed_response_alg", c_array("id_token_algs"),
     ["id_token_signed_response_alg"], ["id_token_signed_response_alg", "edgeauth_id_token_alg"]),
    ("a signing key's alg", c_array("alg_names"), ["alg"], ["alg"]),
]
for name, c_values, sqlite_subjects, pg_subjects in ENUMS:
    for backend, sql, subjects in (("SQLite", SQLITE_SQL, sqlite_subjects),
                                   ("PostgreSQL", PG_SQL, pg_subjects)):
        lists = check_lists(sql, subjects)
        check(f"{backend} has a CHECK of {name}", len(lists) > 0, True)
        for values in lists:
            check(f"{backend}'s CHECK of {name} vs the C list", values, sorted(c_values))

for column, default in (("token_endpoint_auth_method", "CLIENT_AUTH_METHOD_DEFAULT"),
                        ("id_token_signed_response_alg", "CLIENT_ID_TOKEN_ALG_DEFAULT")):
    want = c_string_macro(default)
    for backend, sql in (("SQLite", SQLITE_SQL), ("PostgreSQL", PG_SQL)):
        found = re.findall(r"ADD COLUMN " + column + r"\b[^,;]*DEFAULT '(\w+)'", sql)
        check(f"{backend}'s default of {column} vs {default}", found, [want])

# ---- what the PostgreSQL functions answer and the C code reads ----
pg_c = "\n".join(c_sources(True).values())
for status in re.findall(r'\{ "(\w+)", E_\w+,', pg_c):
    check(f"the refusal '{status}' that pg_*.c maps is one schema/postgres/ answers",
          f"'{status}'" in PG_SQL, True)
channel = c_string_macro("PG_CHANNEL")
for m in re.finditer(r"pg_notify\('(\w+)'", PG_SQL):
    check("a pg_notify channel vs PG_CHANNEL", m.group(1), channel)
for payload in re.findall(r"pg_notify\('\w+', '(\w+)'\)", PG_SQL):
    check(f"the NOTIFY payload '{payload}' is one pg_conn.c reads", f'"{payload}"' in pg_c, True)



# ---- the tables and their columns, in order ----
def tables(sql):
    """Each table the migrations leave, with its columns in order: CREATE
    TABLE, then ALTER TABLE's ADD and DROP COLUMN, and DROP TABLE."""
    out = {}
    for stmt in re.sub(r"--[^\n]*", "", sql).split(";"):
        stmt = stmt.strip()
        m = re.match(r"CREATE TABLE (\w+)\s*\((.*)\)[\w\s]*$", stmt, re.S)
        if m:
            words = [a.split()[0] for a in split_args(m.group(2)) if a.split()]
            out[m.group(1)] = [w for w in words
                               if w.upper() not in ("PRIMARY", "UNIQUE", "FOREIGN", "CHECK", "CONSTRAINT")]
            continue
        m = re.match(r"ALTER TABLE (\w+)", stmt)
        if m:
            out[m.group(1)] += re.findall(r"ADD COLUMN (\w+)", stmt)
            for c in re.findall(r"DROP COLUMN (\w+)", stmt):
                out[m.group(1)].remove(c)
        m = re.match(r"DROP TABLE (\w+)", stmt)
        if m:
            out.pop(m.group(1), None)
    return out


# What one backend has alone, and why: SQLite's users search and count
# (PostgreSQL has trigram indexes, and counts with a query); PostgreSQL's
# striped client counts, and the outbox claims of a fleet's nodes.
SQLITE_ONLY = {"search_positions", "user_counts", "record_counts", "user_suffixes", "user_suffixes_pending",
               "user_suffixes_recent"}
PG_ONLY = {"client_counts"}
PG_ONLY_COLUMNS = {"backchannel_outbox": ["claimed_by", "claimed_until"]}
sqlite_tables, pg_tables = tables(SQLITE_SQL), tables(PG_SQL)
check("the tables of SQLite alone", sorted(set(sqlite_tables) - set(pg_tables)), sorted(SQLITE_ONLY))
check("the tables of PostgreSQL alone", sorted(set(pg_tables) - set(sqlite_tables)), sorted(PG_ONLY))
for t in sorted(set(sqlite_tables) & set(pg_tables)):
    check(f"the columns of {t}", sqlite_tables[t],
          [c for c in pg_tables[t] if c not in PG_ONLY_COLUMNS.get(t, [])])

print(f"backends_agree: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
