// Package pb holds the generated code of the axon plugin protocol
// (plugin.proto, package axon.plugin.v1). Never edit the generated files:
// run `make proto`.
package pb

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative plugin.proto
