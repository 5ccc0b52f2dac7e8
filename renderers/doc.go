// Package renderers turns a resolved switch intent into the shared device
// model. Each platform is one sub-package registered in renderers/all.
package renderers
