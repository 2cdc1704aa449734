// The `permission-server` executable: see PermissionServerCommand and ../../README.md.
PermissionServerCommand.main()
