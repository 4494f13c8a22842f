"""The generated protobuf modules, and the CLI's JSON read back into them.

`profdiff ... --format json` prints enum values of diff.proto by their `display_text` option
("unchanged", "Average step time"; client/json_output.cc), which protobuf's own JSON parser
does not know: those strings are turned back into enum numbers first, so a report read from
the CLI is the same message the Differ service sends.
"""
import json
import re

from google.protobuf import descriptor as _descriptor
from google.protobuf import json_format

from ._errors import ProfdiffError

try:
    from .v1 import diff_pb2, differ_pb2, differ_pb2_grpc, profile_pb2
    from .v1 import run_store_pb2, run_store_pb2_grpc
except ImportError as error:  # a source checkout used without building the package
    raise ImportError(
        "profdiff: the generated protobuf modules (profdiff/v1) are missing; install the "
        "package with `pip install --no-index --no-build-isolation ./python`, which generates "
        f"them from protos/ ({error})") from error

__all__ = ["diff_pb2", "differ_pb2", "differ_pb2_grpc", "profile_pb2", "run_store_pb2",
           "run_store_pb2_grpc", "parse_json", "enum_word", "has_display_text"]

_DISPLAY_TEXT = diff_pb2.display_text
_texts_by_enum = {}


def _display_texts(enum):
    """{number: text} of an enum whose values carry display_text, else None."""
    if enum.full_name not in _texts_by_enum:
        texts = {}
        for value in enum.values:
            options = value.GetOptions()
            if options.HasExtension(_DISPLAY_TEXT):
                texts[value.number] = options.Extensions[_DISPLAY_TEXT]
        # An enum with any display text prints every value by it ("" for UNSPECIFIED).
        _texts_by_enum[enum.full_name] = (
            {v.number: texts.get(v.number, "") for v in enum.values} if texts else None)
    return _texts_by_enum[enum.full_name]


def has_display_text(enum):
    return _display_texts(enum) is not None


def _value_prefix(enum):
    # ModuleNodeKind -> MODULE_NODE_KIND_ (client/csv_table.cc's ValuePrefix).
    return re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"


def enum_word(enum, number):
    """An enum value as the CLI's CSV writes it (client/csv_table.cc CsvEnumWord): its display
    text, else its name without the enum's prefix in lower case; "" for UNSPECIFIED."""
    texts = _display_texts(enum)
    if texts is not None:
        return texts.get(number, "")
    value = enum.values_by_number.get(number)
    if value is None:
        return ""
    name = value.name
    prefix = _value_prefix(enum)
    if name.startswith(prefix):
        name = name[len(prefix):]
    return "" if name == "UNSPECIFIED" else name.lower()


def _undisplay(obj, descriptor):
    """Replaces display texts of enum fields in `obj` (a dict parsed from the CLI's JSON for a
    message of `descriptor`) by their numbers, in place."""
    for key, value in obj.items():
        field = descriptor.fields_by_name.get(key)
        if field is None or value is None:
            continue  # json_format reports unknown fields itself
        if field.type == _descriptor.FieldDescriptor.TYPE_MESSAGE:
            items = value if isinstance(value, list) else [value]
            for item in items:
                if isinstance(item, dict):
                    _undisplay(item, field.message_type)
        elif field.type == _descriptor.FieldDescriptor.TYPE_ENUM:
            texts = _display_texts(field.enum_type)
            if texts is None:
                continue
            numbers = {text: number for number, text in texts.items()}

            def number_of(text):
                # A name or number is left for json_format to read (or refuse).
                return numbers.get(text, text) if isinstance(text, str) else text

            obj[key] = ([number_of(v) for v in value] if isinstance(value, list)
                        else number_of(value))


def parse_json(text, message_class, what):
    """The CLI's `--format json` output for `message_class` as that message; `what` names the
    command in errors."""
    try:
        # protobuf prints a double's -0.0 as -0, which json reads as the int 0: the sign of a
        # zero delta would be lost, and the message differ from the service's.
        obj = json.loads(text, parse_int=lambda s: -0.0 if s == "-0" else int(s))
    except ValueError as error:
        raise ProfdiffError(f"{what}: the CLI's output is not JSON ({error}): "
                            f"{text[:200]!r}") from error
    _undisplay(obj, message_class.DESCRIPTOR)
    message = message_class()
    try:
        json_format.ParseDict(obj, message)
    except json_format.ParseError as error:
        # Strict on purpose: a field this package does not know means its stubs were generated
        # from other protos than the binary's; reading around that would drop data silently.
        raise ProfdiffError(
            f"{what}: the CLI printed a {message_class.DESCRIPTOR.full_name} this package cannot "
            f"read ({error}); install the package from the checkout the profdiff binary was "
            "built from") from error
    return message
