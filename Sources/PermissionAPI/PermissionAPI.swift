// PermissionAPI: see ../../README.md
