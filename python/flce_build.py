"""flce_build.py: a PEP 517 build backend for the flce package with no requirements (pip
needs no network to install it): a wheel of flce/__init__.py and libflce.so, taken from
$FLCE_LIB or the source tree's build/libflce.so."""
import base64
import hashlib
import os
import sysconfig
import zipfile

NAME, VERSION = "flce", "0.1.0"  # flce --version: one number for the project
REQUIRES = ["numpy"]  # every import of flce/__init__.py outside the standard library (pyproject.toml's dependencies)
HERE = os.path.dirname(os.path.abspath(__file__))


def _library():
    for p in (os.environ.get("FLCE_LIB", ""), os.path.join(HERE, "..", "build", "libflce.so")):
        if p and os.path.isfile(p):
            return p
    raise RuntimeError("flce: build libflce first (scripts/setup.sh, or cmake --build build: build/libflce.so), "
                       "or set FLCE_LIB to it")


def _tag():
    return "py3-none-" + sysconfig.get_platform().replace("-", "_").replace(".", "_")


def get_requires_for_build_wheel(config_settings=None):
    return []


def _metadata():
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: FLCE contribution evaluation from Python "
            "(traces, prototypes, flce eval's contributions bit for bit)\nRequires-Python: >=3.9\n" % (NAME, VERSION)
            + "".join("Requires-Dist: %s\n" % r for r in REQUIRES))


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, "%s-%s.dist-info" % (NAME, VERSION))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w") as f:
        f.write(_metadata())
    return os.path.basename(d)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    info = "%s-%s.dist-info" % (NAME, VERSION)
    files = {"flce/__init__.py": open(os.path.join(HERE, "flce", "__init__.py"), "rb").read(),
             "flce/libflce.so": open(_library(), "rb").read(),
             info + "/METADATA": _metadata().encode(),
             info + "/WHEEL": ("Wheel-Version: 1.0\nGenerator: flce_build\nRoot-Is-Purelib: false\nTag: %s\n" % _tag()).encode()}
    record = []
    for k, v in files.items():
        h = base64.urlsafe_b64encode(hashlib.sha256(v).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (k, h, len(v)))
    record.append(info + "/RECORD,,")
    files[info + "/RECORD"] = ("\n".join(record) + "\n").encode()
    name = "%s-%s-%s.whl" % (NAME, VERSION, _tag())
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for k, v in files.items():
            info_z = zipfile.ZipInfo(k, date_time=(2026, 1, 1, 0, 0, 0))
            info_z.external_attr = (0o755 if k.endswith(".so") else 0o644) << 16
            z.writestr(info_z, v, zipfile.ZIP_DEFLATED)
    return name
