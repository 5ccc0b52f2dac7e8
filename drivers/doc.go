// Package drivers reads and writes devices. Each transport (gnmi, ssh,
// netlink) is a sub-package behind the Driver interface; drivers import only
// the shared model, never intent or a renderer.
package drivers
