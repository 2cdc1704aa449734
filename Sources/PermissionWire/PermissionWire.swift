// PermissionWire: see ../../README.md
