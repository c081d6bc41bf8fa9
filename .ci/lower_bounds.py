"""The lowest versions a wheel allows, as pip constraints (`name==lower`, one a line): each
runtime requirement's lower bound, read from the wheel's own metadata, so the lower-bounds
lane tests what the package declares. Usage: lower_bounds.py WHEEL"""

import sys
import zipfile
from email.parser import Parser

from packaging.requirements import Requirement

with zipfile.ZipFile(sys.argv[1]) as wheel:
    name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    metadata = Parser().parsestr(wheel.read(name).decode())
for line in metadata.get_all("Requires-Dist") or []:
    requirement = Requirement(line)
    if requirement.marker is not None and "extra" in str(requirement.marker):
        continue  # an extra's tools are tested at the lock's versions
    lower = [spec.version for spec in requirement.specifier if spec.operator == ">="]
    if len(lower) != 1:
        sys.exit(f"{requirement}: a runtime requirement needs one lower bound (>=)")
    print(f"{requirement.name}=={lower[0]}")
