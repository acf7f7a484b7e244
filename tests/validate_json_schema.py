#!/usr/bin/python3
"""Checks hmtt's JSON files against a JSON Schema (draft 2020-12), and makes
mutated copies of them for the negative cases. Shared by the profile-schema
tests of the chameleon and psnap tiers (tests/*/schema_test.sh).

  validate_json_schema.py check SCHEMA FILE...   every FILE must validate: exit 0, else 1
  validate_json_schema.py reject SCHEMA FILE...  every FILE must be rejected: exit 0, else 1
  validate_json_schema.py mutate IN OUT OP POINTER [JSON]
      OUT = IN with one change at the JSON Pointer POINTER (RFC 6901, e.g. /signature/kinds/read):
      set (replace an existing value with JSON), add (a new object member or array entry),
      delete, append (JSON to the array at POINTER), pop (the array's last entry).
      A POINTER that is not there (or already there, for add) is an error, so a mutation
      never silently turns into a different one when the writer changes.

Exit 2 on a usage error, a file that is not JSON, or a missing jsonschema
module. Run it with Debian's /usr/bin/python3 (python3-jsonschema): the
python3 on PATH may be another interpreter without it.

Two departures from a plain Draft202012Validator, both to agree with hmtt's
reader (nlohmann::json): an "integer" is a JSON number written without a
fraction or exponent (JSON Schema counts 512.0 as an integer, hmtt rejects it
where it wants an unsigned integer), and NaN / Infinity are not JSON.
"""
import json
import sys

USAGE = __doc__.split("\n\n")[1]


def die(message):
    print(f"validate_json_schema: {message}", file=sys.stderr)
    sys.exit(2)


try:
    import jsonschema
    from jsonschema import Draft202012Validator, validators
except ImportError:
    die(f"the Python module jsonschema is missing for {sys.executable} "
        "(Debian: apt-get install python3-jsonschema, or scripts/deps.sh all)")


def reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f, parse_constant=reject_constant)
    except (OSError, ValueError) as e:
        die(f"{path}: {e}")


def is_json_integer(_checker, instance):
    return isinstance(instance, int) and not isinstance(instance, bool)


StrictValidator = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", is_json_integer))


def validator_for(schema_path):
    schema = load(schema_path)
    try:
        Draft202012Validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        die(f"{schema_path}: not a valid draft 2020-12 schema: {e.message}")
    return StrictValidator(schema)


def pointer(path):
    return "/" + "/".join(str(p) for p in path) if path else "(top level)"


def short_message(error):
    """The error's message with a long instance (a whole signature or histogram)
    replaced by its kind and size, and a long enum by its ends."""
    message, text = error.message, repr(error.instance)
    values = error.validator_value
    if error.validator == "enum" and len(values) > 8:
        message = f"{text} is not one of the {len(values)} allowed values ({values[0]}, {values[1]}, ..., {values[-1]})"
    if len(text) > 60 and text in message:
        kind = {list: "an array of", dict: "an object of"}.get(type(error.instance))
        size = f"{kind} {len(error.instance)} entries" if kind else text[:40] + "..."
        message = message.replace(text, size)
    return message[:300]


def errors_of(validator, instance):
    """One line per error: the instance's JSON Pointer and what is wrong, deepest
    first inside anyOf / oneOf / if-then so that the message names the field."""
    out = []
    for e in sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        leaf = jsonschema.exceptions.best_match([e])
        out.append(f"{pointer(leaf.absolute_path)}: {short_message(leaf)}")
    return out


def check(schema_path, files, want_valid):
    validator = validator_for(schema_path)
    failed = 0
    for path in files:
        errors = errors_of(validator, load(path))
        if want_valid and errors:
            failed += 1
            print(f"FAIL {path}: does not validate against {schema_path} ({len(errors)} error(s)):")
            for line in errors[:20]:
                print(f"  {path}: {line}")
        elif want_valid:
            print(f"ok   {path}: valid")
        elif not errors:
            failed += 1
            print(f"FAIL {path}: {schema_path} accepts it, but it must be rejected")
        else:
            print(f"ok   {path}: rejected: {errors[0]}")
    return 1 if failed else 0


def split_pointer(ptr):
    if not ptr.startswith("/"):
        die(f"pointer '{ptr}': must start with /")
    return [t.replace("~1", "/").replace("~0", "~") for t in ptr[1:].split("/")]


def mutate(src, dst, op, ptr, value_text):
    doc = load(src)
    tokens = split_pointer(ptr)
    parent = doc
    for i, t in enumerate(tokens[:-1]):
        try:
            parent = parent[int(t)] if isinstance(parent, list) else parent[t]
        except (KeyError, IndexError, ValueError, TypeError):
            die(f"{src}: {'/' + '/'.join(tokens[:i + 1])}: not there")
    last = tokens[-1]
    value = None
    if op in ("set", "add", "append"):
        if value_text is None:
            die(f"mutate {op} needs a JSON value")
        try:
            value = json.loads(value_text, parse_constant=reject_constant)
        except ValueError as e:
            die(f"mutate {op}: value '{value_text}': {e}")
    if isinstance(parent, list):
        try:
            index = int(last)
        except ValueError:
            die(f"{src}: {ptr}: '{last}' is not an array index")
        exists = 0 <= index < len(parent)
    elif isinstance(parent, dict):
        exists = last in parent
    else:
        die(f"{src}: {ptr}: the parent is neither an object nor an array")
    if op == "add":
        if exists and isinstance(parent, dict):
            die(f"{src}: {ptr}: already there (add makes a new member)")
        if isinstance(parent, list):
            if not 0 <= index <= len(parent):
                die(f"{src}: {ptr}: index out of range")
            parent.insert(index, value)
        else:
            parent[last] = value
    else:
        if not exists:
            die(f"{src}: {ptr}: not there")
        key = int(last) if isinstance(parent, list) else last
        if op == "set":
            parent[key] = value
        elif op == "delete":
            del parent[key]
        elif op in ("append", "pop"):
            target = parent[key]
            if not isinstance(target, list):
                die(f"{src}: {ptr}: not an array")
            if op == "append":
                target.append(value)
            elif not target:
                die(f"{src}: {ptr}: empty array")
            else:
                target.pop()
        else:
            die(f"unknown mutation '{op}'")
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return 0


def main(argv):
    if len(argv) >= 3 and argv[0] in ("check", "reject"):
        return check(argv[1], argv[2:], argv[0] == "check")
    if len(argv) in (5, 6) and argv[0] == "mutate":
        return mutate(argv[1], argv[2], argv[3], argv[4], argv[5] if len(argv) == 6 else None)
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
