"""Loads and validates capi/abi.toml, the one definition of the C ABI's tables.

Stdlib only (tomllib, Python >= 3.11). load() returns an Abi whose tables are lists of dicts
with every optional field filled in, or raises AbiError naming the entry at fault.
"""
import os
import re
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_PATH = os.path.join(ROOT, "capi", "abi.toml")


class AbiError(Exception):
    pass


# table -> (C typedef, prefix stripped for the CamelCase name, required fields, optional fields)
TABLES = {
    "status": ("ct_status", "CT_ERR_", (), {"camel": None, "go": None, "doc": ""}),
    "dtype": ("ct_dtype", "CT_", ("torch", "short", "itemsize"), {"camel": None, "go": None, "doc": ""}),
    "device_type": ("ct_device_type", "CT_", ("torch",), {"camel": None, "go": None, "doc": ""}),
    "device_property": ("ct_device_property", "CT_PROP_", (), {"camel": None, "go": None, "doc": ""}),
    "unary_op": ("ct_unary_op", "CT_", ("torch",),
                 {"camel": None, "go": None, "doc": "", "float": False, "result": "", "inplace": True}),
    "binary_op": ("ct_binary_op", "CT_", ("torch", "kind"),
                  {"camel": None, "go": None, "doc": "", "promote": "", "complex": True, "bool": True,
                   "reverse": False}),
    "reduce_op": ("ct_reduce_op", "CT_", ("torch",), {"camel": None, "go": None, "doc": ""}),
    "event_flag": ("ct_event_flags", "CT_EVENT_", (), {"camel": None, "go": None, "doc": ""}),
    "fft_norm": ("ct_fft_norm", "CT_FFT_NORM_", ("torch",), {"camel": None, "go": None, "doc": ""}),
    "capture_mode": ("ct_capture_mode", "CT_CAPTURE_MODE_", ("torch",), {"camel": None, "go": None, "doc": ""}),
    "comm_op": ("ct_comm_op", "CT_COMM_", ("torch",), {"camel": None, "go": None, "doc": ""}),
    "csan_mode": ("ct_csan_mode", "CT_CSAN_", (), {"camel": None, "go": None, "doc": ""}),
    "jit_arg": ("ct_jit_arg_type", "CT_JIT_ARG_", (), {"camel": None, "go": None, "doc": ""}),
}
KINDS = ("arith", "compare", "logical")
PROMOTES = ("", "int_to_float")
UNARY_RESULTS = ("", "bool")


def camel_of(words):
    """NULL_POINTER -> NullPointer, logical_and -> LogicalAnd."""
    return "".join(w[:1].upper() + w[1:].lower() for w in words.split("_") if w)


class Abi:
    def __init__(self, data, path):
        self.path = path
        self.tables = {}
        all_names = {}
        for table, (ctype, prefix, required, optional) in TABLES.items():
            rows = data.get(table)
            if not isinstance(rows, list) or not rows:
                raise AbiError(f"{path}: table [[{table}]] is missing or empty")
            seen_values = {}
            out = []
            for i, row in enumerate(rows):
                where = f"{path}: [[{table}]] #{i + 1}"
                for f in ("name", "value") + tuple(required):
                    if f not in row:
                        raise AbiError(f"{where} ({row.get('name', '?')}): missing field '{f}'")
                unknown = set(row) - {"name", "value"} - set(required) - set(optional)
                if unknown:
                    raise AbiError(f"{where} ({row['name']}): unknown field(s) {sorted(unknown)}")
                name, value = row["name"], row["value"]
                if not isinstance(value, int) or isinstance(value, bool):
                    raise AbiError(f"{where} ({name}): value must be an integer")
                if not name.startswith("CT_") or not name.replace("_", "").isalnum() or name.upper() != name:
                    raise AbiError(f"{where}: bad C name '{name}'")
                if name in all_names:
                    raise AbiError(f"{where}: name {name} already used in [[{all_names[name]}]]")
                if value in seen_values:
                    raise AbiError(f"{where} ({name}): value {value} already used by {seen_values[value]}")
                all_names[name] = table
                seen_values[value] = name
                r = dict(optional)
                r.update(row)
                short = name[len(prefix):] if name.startswith(prefix) else name[len("CT_"):]
                r["upper"] = short  # Java's enum constant name, e.g. FLOOR_DIVIDE
                if r["camel"] is None:
                    r["camel"] = camel_of(r["torch"]) if table.endswith("_op") else camel_of(short)
                if r["go"] is None:
                    r["go"] = r["camel"]
                if table == "binary_op":
                    if r["kind"] not in KINDS:
                        raise AbiError(f"{where} ({name}): kind must be one of {KINDS}")
                    if r["promote"] not in PROMOTES:
                        raise AbiError(f"{where} ({name}): promote must be one of {PROMOTES}")
                if table == "unary_op" and r["result"] not in UNARY_RESULTS:
                    raise AbiError(f"{where} ({name}): result must be one of {UNARY_RESULTS}")
                out.append(r)
            if table.endswith("_op"):
                # op tables are dense (impl indexes its name tables by value) and in order
                if [r["value"] for r in out] != list(range(len(out))):
                    raise AbiError(f"{path}: [[{table}]] values must be 0, 1, 2, ... in order")
            self.tables[table] = out
        und = data.get("dtype_undefined")
        if not und or "name" not in und or "value" not in und:
            raise AbiError(f"{path}: [dtype_undefined] needs name and value")
        self.dtype_undefined = dict(und)

    def __getitem__(self, table):
        return self.tables[table]

    def ctype(self, table):
        return TABLES[table][0]


def declared_functions(header):
    """The public functions: the names of ctorch.h's CT_API declarations, sorted."""
    with open(header, encoding="utf-8") as f:
        text = f.read()
    return sorted(set(re.findall(r"^CT_API\b[^;(]*?\b(ct_\w+)\s*\(", text, re.M)))


def load(path=DEFAULT_PATH):
    with open(path, "rb") as f:
        try:
            data = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise AbiError(f"{path}: {e}") from e
    return Abi(data, path)
