// PermissionClient: see ../../README.md
