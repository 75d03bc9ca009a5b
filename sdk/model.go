package sdk

// ConfiguredModel is what Models returns for a provider block that serves
// the one model it names: that model, or none when the block names none.
func ConfiguredModel(id string) []Model {
	if id == "" {
		return nil
	}
	return []Model{{ID: id}}
}
