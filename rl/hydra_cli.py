"""What `glyphjax-train` and `glyphjax-eval` share around Hydra: checks before any work, one-line errors,
a help page per tool, `tasks=ID` shorthand and clean interruption.

`run_cli` composes the config once before Hydra runs the job (every value of a `-m` sweep too), so
an unknown key, a wrong type or a missing preset stops the run with one line on stderr and exit
status 2, before any model load or compile. Hydra's own modes (`--cfg`, `--info`, `-cn`, ...) are
left to Hydra.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from omegaconf import DictConfig, OmegaConf

CONF_DIR = str(Path(__file__).resolve().parent.parent / "conf")
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
MAX_PREFLIGHT_COMPOSES = 32


class CLIConfigError(ValueError):
    """A configuration the CLI refuses; the message is one line naming the key and what it takes."""


@dataclass
class CLISpec:
    """One Hydra CLI: its name, one-line description, primary config, schema registration and groups."""

    app: str
    description: str
    config_name: str
    register: Callable[[], None]
    groups: Mapping[str, Sequence[str] | None]  # group -> options shown (None = every conf/<group>/*.yaml)
    examples: Sequence[str] = ()
    moved_keys: Mapping[str, str] = dataclasses.field(default_factory=dict)
    schema: Any = None  # the root config dataclass (mapping fields take `key={...}` overrides that add keys)


# --- one-line messages ----------------------------------------------------------------------------

def describe_type(t: Any) -> str:
    """What a schema field type takes, in words ("an integer or null")."""
    args = [a for a in typing.get_args(t) if a is not type(None)]
    if typing.get_origin(t) is typing.Union and len(args) < len(typing.get_args(t)):
        return f"{describe_type(args[0])} or null"
    origin = typing.get_origin(t)
    if origin in (list, tuple, typing.List):
        return "a list, e.g. [a,b]"
    if origin in (dict, typing.Dict):
        return "a mapping, e.g. {k: v}"
    words = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}
    return words.get(t, getattr(t, "__name__", str(t)))


def _field_type(cls: Any, key: str) -> Any:
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        return None
    try:
        return typing.get_type_hints(cls).get(key)
    except (NameError, TypeError):  # an unresolvable annotation: no type description
        return None


def unknown_key_message(full_key: str, cls: Any, moved: Mapping[str, str] | None = None) -> str:
    """`unknown key 'rl.foo'; rl takes: loss, ...` (or where a moved key lives now)."""
    if moved and full_key in moved:
        return f"unknown key '{full_key}': it is now {moved[full_key]} (e.g. {moved[full_key]}=...)"
    parent = full_key.rsplit(".", 1)[0] if "." in full_key else None
    where = f"{parent} takes" if parent else "top-level keys are"
    names = [f.name for f in dataclasses.fields(cls)] if dataclasses.is_dataclass(cls) else []
    return f"unknown key '{full_key}'" + (f"; {where}: {', '.join(names)}" if names else "")


def error_line(exc: BaseException, moved: Mapping[str, str] | None = None) -> str:
    """One line for a Hydra/OmegaConf composition error: the key, the value, what it takes."""
    from omegaconf.errors import ConfigAttributeError, ConfigKeyError, OmegaConfBaseException, ValidationError

    cause = exc if isinstance(exc, OmegaConfBaseException) else exc.__cause__
    if isinstance(cause, OmegaConfBaseException) and getattr(cause, "full_key", None):
        key, cls = str(cause.full_key), getattr(cause, "object_type", None)
        if isinstance(cause, (ConfigAttributeError, ConfigKeyError)):
            return unknown_key_message(key, cls, moved)
        if isinstance(cause, ValidationError):
            got = re.search(r"Value '(.*?)' of type '(\w+)'", str(cause))
            value = f"{got.group(1)!r} ({got.group(2)})" if got else "this value"
            takes = _field_type(cls, key.rsplit(".", 1)[-1])
            return f"bad value for '{key}': {value}" + (f"; it takes {describe_type(takes)}" if takes else "")
    text = " ".join(str(exc).split())
    found = re.search(r"Could not find '(\w+)/([^']*)'", text)
    if found:
        group = found.group(1)
        options = sorted(p.stem for p in Path(CONF_DIR, group).glob("*.yaml"))
        hint = (f"; for task ids or globs use tasks.ids=[...], e.g. tasks.ids='[{found.group(2)}]'"
                if group == "tasks" else "")
        return f"no {group} preset '{found.group(2)}' (conf/{group}/: {', '.join(options)}){hint}"
    return text


def unknown_keys(node: DictConfig, prefix: str = "") -> list[tuple[str, type]]:
    """Keys present in a typed node but not declared by its schema (e.g. added with `+key=...`)."""
    cls = OmegaConf.get_type(node)
    if not dataclasses.is_dataclass(cls):
        return []
    declared = {f.name for f in dataclasses.fields(cls)}
    out = []
    for key in node.keys():
        if key not in declared:
            out.append((f"{prefix}{key}", cls))
            continue
        child = node._get_node(key)
        if isinstance(child, DictConfig) and not child._is_none() and not child._is_missing():
            out.extend(unknown_keys(child, f"{prefix}{key}."))
    return out


def check_keys(cfg: DictConfig, moved: Mapping[str, str] | None = None) -> None:
    """Raise CLIConfigError for the first key the schema does not declare."""
    extra = unknown_keys(cfg)
    if extra:
        key, cls = extra[0]
        raise CLIConfigError(unknown_key_message(key, cls, moved))


# --- before Hydra runs ---------------------------------------------------------------------------

def override_variants(overrides: Sequence[str], multirun: bool) -> list[list[str]]:
    """Override lists that together use every value of every sweep once (first values elsewhere)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    if not multirun:
        return [list(overrides)]
    parsed = OverridesParser.create().parse_overrides(list(overrides))
    values = [list(o.sweep_string_iterator()) if o.is_sweep_override() else None for o in parsed]
    base = [o.input_line if v is None else f"{o.get_key_element()}={v[0]}" for o, v in zip(parsed, values)]
    variants = [base]
    for i, (o, v) in enumerate(zip(parsed, values)):
        for value in (v or [])[1:]:
            variants.append(base[:i] + [f"{o.get_key_element()}={value}"] + base[i + 1:])
    return variants[:MAX_PREFLIGHT_COMPOSES]


def preflight(spec: CLISpec, argv: Sequence[str]) -> None:
    """Compose (without running) every variant of the command line; raise CLIConfigError on the first problem."""
    from hydra import compose, initialize_config_dir

    flags = [a for a in argv if a.startswith("-")]
    multirun = any(a in ("-m", "--multirun") for a in flags)
    if any(a not in ("-m", "--multirun") for a in flags):
        return  # Hydra's own modes and options
    overrides = [a for a in argv if not a.startswith("-")]
    try:
        variants = override_variants(overrides, multirun)
    except Exception as e:  # a malformed override: Hydra's parser says where
        raise CLIConfigError(error_line(e)) from None
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None, job_name=spec.app):
        for variant in variants:
            try:
                cfg = compose(spec.config_name, overrides=variant)
            except Exception as e:  # Hydra/OmegaConf composition errors
                raise CLIConfigError(error_line(e, spec.moved_keys)) from None
            check_keys(cfg, spec.moved_keys)


def task_presets() -> set[str]:
    return {p.stem for p in Path(CONF_DIR, "tasks").glob("*.yaml")}


def rewrite_task_arg(argv: Sequence[str]) -> list[str]:
    """`tasks=classics/snake-easy` (an id or glob where a task-set preset is expected) becomes
    `tasks.ids=['classics/snake-easy']`; presets and sweeps stay as they are."""
    presets = task_presets()
    out = []
    for a in argv:
        value = a[len("tasks="):] if a.startswith("tasks=") else None
        if value and value not in presets and "," not in value and "'" not in value:
            out += [f"tasks.ids=['{value}']", f"tasks.name='{value}'"]
            continue
        out.append(a)
    return out


def mapping_keys(schema: Any, prefix: str = "") -> set[str]:
    """Dotted keys of every mapping-typed (Dict) field under a dataclass schema."""
    out: set[str] = set()
    if not (isinstance(schema, type) and dataclasses.is_dataclass(schema)):
        return out
    for f in dataclasses.fields(schema):
        t = _field_type(schema, f.name)
        args = [a for a in typing.get_args(t) if a is not type(None)]
        t = args[0] if typing.get_origin(t) is typing.Union and len(args) == 1 else t
        if typing.get_origin(t) in (dict, typing.Dict):
            out.add(prefix + f.name)
        else:
            out |= mapping_keys(t, f"{prefix}{f.name}.")
    return out


def rewrite_mapping_args(argv: Sequence[str], keys: set[str]) -> list[str]:
    """`tasks.mixture={minihack: 2}` (a mapping field) becomes `++tasks.mixture={minihack: 2}`:
    Hydra merges a mapping into the preset's (its rule), and `++` lets it add new keys, which a
    plain override refuses under the typed schema."""
    out = []
    for a in argv:
        key, sep, value = a.partition("=")
        out.append(f"++{a}" if sep and key in keys and value.lstrip().startswith("{") else a)
    return out


# --- help ----------------------------------------------------------------------------------------

def _flat(d: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(d, dict) and d:
        return [kv for k, v in d.items() for kv in _flat(v, f"{prefix}{k}.")]
    return [(prefix[:-1], d)]


def _show(value: Any) -> str:
    """A value as it is written on the command line (null, true, [a, b])."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, list):
        return "[" + ",".join(_show(v) for v in value) + "]"
    return "{}" if value == {} else str(value)


def help_text(spec: CLISpec) -> str:
    """The tool's own groups with their options and every key with its default (composed, unresolved)."""
    from hydra import compose, initialize_config_dir

    lines = [f"{spec.app}: {spec.description}", "",
             f"Usage: {spec.app} [-m] [GROUP=OPTION ...] [KEY=VALUE ...]", ""]
    lines += ["Examples:", *[f"  {e}" for e in spec.examples], ""] if spec.examples else []
    presets = "; presets: +experiment=NAME" if "experiment" in spec.groups else ""
    lines.append(f"Config groups (GROUP=OPTION{presets}):")
    for group, options in spec.groups.items():
        opts = options if options is not None else sorted(p.stem for p in Path(CONF_DIR, group).glob("*.yaml"))
        lines.append(f"  {group}: {', '.join(opts)}")
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None, job_name=spec.app):
        cfg = compose(spec.config_name)
    lines += ["", "Keys with their defaults (KEY=VALUE overrides one):"]
    lines += [f"  {k}={_show(v)}" for k, v in _flat(OmegaConf.to_container(cfg, resolve=False))]
    lines += ["", "Hydra: --cfg job prints the composed config; -m runs a sweep; --hydra-help for Hydra's options."]
    return "\n".join(lines)


# --- running -------------------------------------------------------------------------------------

def fail(app: str, message: str, status: int = EXIT_USAGE) -> typing.NoReturn:
    print(f"{app}: error: {message}", file=sys.stderr)
    raise SystemExit(status)


def interrupted(app: str, where: str | None) -> typing.NoReturn:
    """Ctrl-C: one line saying where the partial results are (None: before the run began); exit status 130."""
    print(f"{app}: interrupted; partial results in {where}" if where else f"{app}: interrupted before the run started",
          file=sys.stderr)
    raise SystemExit(EXIT_INTERRUPTED)


def run_cli(spec: CLISpec, task: Callable[[DictConfig], None], argv: Sequence[str] | None = None,
            rewrite: Callable[[list[str]], list[str]] | None = None) -> None:
    """Help, argument rewriting, preflight composition, then Hydra running `task` on each job's config."""
    import hydra

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        spec.register()
        if any(a in ("-h", "--help") for a in args):
            print(help_text(spec))
            return
        args = rewrite_task_arg(rewrite(args) if rewrite else args)
        if spec.schema is not None:
            args = rewrite_mapping_args(args, mapping_keys(spec.schema))
        try:
            preflight(spec, args)
        except CLIConfigError as e:
            fail(spec.app, f"configuration: {e}")
        from glyphjax.core.compiled import use_persistent_cache
        try:
            use_persistent_cache()  # $GLYPHJAX_JAX_CACHE, default ~/.cache/glyphjax/xla
        except ValueError as e:
            fail(spec.app, str(e))

        def job(cfg: DictConfig) -> None:
            try:
                check_keys(cfg, spec.moved_keys)
            except CLIConfigError as e:
                fail(spec.app, f"configuration: {e}")
            task(cfg)

        sys.argv = [sys.argv[0] if sys.argv else spec.app, *args]
        hydra.main(version_base=None, config_path=CONF_DIR, config_name=spec.config_name)(job)()
    except KeyboardInterrupt:  # outside a job (start-up); jobs say where their results are
        interrupted(spec.app, None)
