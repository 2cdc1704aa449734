// PermissionDomain: see ../../README.md
