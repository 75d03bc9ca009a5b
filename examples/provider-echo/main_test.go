package main

import (
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

func TestConformance(t *testing.T) {
	sdktest.ProviderConformance(t, sdktest.ProviderSuite{
		New:    func() sdk.Provider { return &echo{} },
		Config: []byte(`{"prefix": "echo: "}`),
	})
}
