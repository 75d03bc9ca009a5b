package pluginrpc

import (
	"encoding/json"

	"github.com/axonhq/axon/internal/pluginrpc/pb"
	"github.com/axonhq/axon/sdk"
)

// ---- Info ----

func infoToProto(i sdk.Info) *pb.InfoResponse {
	out := &pb.InfoResponse{
		Name: i.Name, Kind: string(i.Kind), Version: i.Version, ApiVersions: i.APIVersions,
		AuthScheme: string(i.Auth.Scheme), AuthName: i.Auth.Name, Prefill: i.Prefill, Output: i.Output, InlineMedia: i.InlineMedia,
		Options: i.Options, OptionsDeclared: i.Options != nil, Lacks: i.Lacks,
	}
	for _, a := range i.Config.Attributes {
		out.Config = append(out.Config, &pb.Attribute{
			Name: a.Name, Type: a.Type, Required: a.Required, DefaultJson: a.Default, Description: a.Description,
		})
	}
	return out
}

func infoFromProto(p *pb.InfoResponse) sdk.Info {
	out := sdk.Info{
		Name: p.GetName(), Kind: sdk.Kind(p.GetKind()), Version: p.GetVersion(), APIVersions: p.GetApiVersions(),
		Auth:    sdk.Auth{Scheme: sdk.AuthScheme(p.GetAuthScheme()), Name: p.GetAuthName()},
		Prefill: p.GetPrefill(), Output: p.GetOutput(), InlineMedia: p.GetInlineMedia(),
	}
	out.Lacks = p.GetLacks()
	if p.GetOptionsDeclared() {
		out.Options = append([]string{}, p.GetOptions()...)
	}
	for _, a := range p.GetConfig() {
		out.Config.Attributes = append(out.Config.Attributes, sdk.Attribute{
			Name: a.GetName(), Type: a.GetType(), Required: a.GetRequired(),
			Default: json.RawMessage(a.GetDefaultJson()), Description: a.GetDescription(),
		})
	}
	return out
}

// ---- Parts and messages ----

func partToProto(p sdk.Part) *pb.Part {
	switch p := p.(type) {
	case sdk.Text:
		return &pb.Part{Kind: &pb.Part_Text{Text: textToProto(p)}}
	case sdk.Image:
		return &pb.Part{Kind: &pb.Part_Image{Image: &pb.ImagePart{MediaType: p.MediaType, Data: p.Data, Url: p.URL, Cache: string(p.Cache)}}}
	case sdk.Document:
		return &pb.Part{Kind: &pb.Part_Document{Document: &pb.DocumentPart{
			MediaType: p.MediaType, Data: p.Data, Url: p.URL, Title: p.Title, Context: p.Context, Cache: string(p.Cache),
		}}}
	case sdk.Reasoning:
		return &pb.Part{Kind: &pb.Part_Reasoning{Reasoning: &pb.ReasoningPart{Text: p.Text, Signature: p.Signature, Redacted: p.Redacted, Origin: p.Origin}}}
	case sdk.ToolCall:
		return &pb.Part{Kind: &pb.Part_ToolCall{ToolCall: toolCallToProto(p)}}
	case sdk.ToolResult:
		return &pb.Part{Kind: &pb.Part_ToolResult{ToolResult: toolResultToProto(p)}}
	}
	return nil
}

func partFromProto(p *pb.Part) sdk.Part {
	switch k := p.GetKind().(type) {
	case *pb.Part_Text:
		return textFromProto(k.Text)
	case *pb.Part_Image:
		return sdk.Image{MediaType: k.Image.GetMediaType(), Data: k.Image.GetData(), URL: k.Image.GetUrl(), Cache: sdk.Cache(k.Image.GetCache())}
	case *pb.Part_Document:
		d := k.Document
		return sdk.Document{
			MediaType: d.GetMediaType(), Data: d.GetData(), URL: d.GetUrl(), Title: d.GetTitle(), Context: d.GetContext(),
			Cache: sdk.Cache(d.GetCache()),
		}
	case *pb.Part_Reasoning:
		return sdk.Reasoning{Text: k.Reasoning.GetText(), Signature: k.Reasoning.GetSignature(), Redacted: k.Reasoning.GetRedacted(), Origin: k.Reasoning.GetOrigin()}
	case *pb.Part_ToolCall:
		return toolCallFromProto(k.ToolCall)
	case *pb.Part_ToolResult:
		return toolResultFromProto(k.ToolResult)
	}
	return nil
}

func partsToProto(ps []sdk.Part) []*pb.Part {
	out := make([]*pb.Part, 0, len(ps))
	for _, p := range ps {
		if q := partToProto(p); q != nil {
			out = append(out, q)
		}
	}
	return out
}

func partsFromProto(ps []*pb.Part) []sdk.Part {
	var out []sdk.Part
	for _, p := range ps {
		if q := partFromProto(p); q != nil {
			out = append(out, q)
		}
	}
	return out
}

func toolCallToProto(c sdk.ToolCall) *pb.ToolCallPart {
	return &pb.ToolCallPart{Id: c.ID, Name: c.Name, InputJson: c.Input, Cache: string(c.Cache)}
}

func toolCallFromProto(c *pb.ToolCallPart) sdk.ToolCall {
	return sdk.ToolCall{ID: c.GetId(), Name: c.GetName(), Input: json.RawMessage(c.GetInputJson()), Cache: sdk.Cache(c.GetCache())}
}

func toolResultToProto(r sdk.ToolResult) *pb.ToolResultPart {
	return &pb.ToolResultPart{CallId: r.CallID, Name: r.Name, Content: partsToProto(r.Content), IsError: r.IsError, Cache: string(r.Cache)}
}

func toolResultFromProto(r *pb.ToolResultPart) sdk.ToolResult {
	return sdk.ToolResult{
		CallID: r.GetCallId(), Name: r.GetName(), Content: partsFromProto(r.GetContent()), IsError: r.GetIsError(),
		Cache: sdk.Cache(r.GetCache()),
	}
}

func toolSpecToProto(t sdk.ToolSpec) *pb.ToolSpec {
	return &pb.ToolSpec{
		Name: t.Name, Description: t.Description, InputSchemaJson: t.InputSchema, SideEffect: string(t.SideEffect),
		Cache: string(t.Cache),
	}
}

func toolSpecFromProto(t *pb.ToolSpec) sdk.ToolSpec {
	return sdk.ToolSpec{
		Name: t.GetName(), Description: t.GetDescription(),
		InputSchema: json.RawMessage(t.GetInputSchemaJson()), SideEffect: sdk.SideEffect(t.GetSideEffect()),
		Cache: sdk.Cache(t.GetCache()),
	}
}

func textToProto(t sdk.Text) *pb.TextPart {
	return &pb.TextPart{Text: t.Text, Cache: string(t.Cache)}
}

func textFromProto(t *pb.TextPart) sdk.Text {
	return sdk.Text{Text: t.GetText(), Cache: sdk.Cache(t.GetCache())}
}

func outputToProto(o *sdk.Output) *pb.Output {
	if o == nil {
		return nil
	}
	return &pb.Output{Kind: string(o.Kind), Name: o.Name, SchemaJson: o.Schema, Strict: o.Strict}
}

func outputFromProto(o *pb.Output) *sdk.Output {
	if o == nil {
		return nil
	}
	return &sdk.Output{Kind: sdk.OutputKind(o.GetKind()), Name: o.GetName(), Schema: json.RawMessage(o.GetSchemaJson()), Strict: o.GetStrict()}
}

// ---- Requests ----

func requestToProto(r *sdk.Request) *pb.GenerateRequest {
	out := &pb.GenerateRequest{
		Model:          r.Model,
		ToolChoiceMode: string(r.ToolChoice.Mode), ToolChoiceName: r.ToolChoice.Name, ToolChoiceSequential: r.ToolChoice.Sequential,
		MaxTokens: clamp32(r.MaxTokens), Temperature: r.Temperature, StopSequences: r.StopSequences,
		Output: outputToProto(r.Output),
	}
	for _, t := range r.System {
		out.System = append(out.System, textToProto(t))
	}
	for _, m := range r.Messages {
		out.Messages = append(out.Messages, &pb.Message{Role: string(m.Role), Parts: partsToProto(m.Parts)})
	}
	for _, t := range r.Tools {
		out.Tools = append(out.Tools, toolSpecToProto(t))
	}
	if len(r.Options) > 0 {
		out.Options = make(map[string][]byte, len(r.Options))
		for k, v := range r.Options {
			out.Options[k] = v
		}
	}
	return out
}

func requestFromProto(p *pb.GenerateRequest) *sdk.Request {
	out := &sdk.Request{
		Model: p.GetModel(),
		ToolChoice: sdk.ToolChoice{
			Mode: sdk.ToolChoiceMode(p.GetToolChoiceMode()), Name: p.GetToolChoiceName(), Sequential: p.GetToolChoiceSequential(),
		},
		MaxTokens: int(p.GetMaxTokens()), Temperature: p.Temperature, StopSequences: p.GetStopSequences(),
		Output: outputFromProto(p.GetOutput()),
	}
	for _, t := range p.GetSystem() {
		out.System = append(out.System, textFromProto(t))
	}
	for _, m := range p.GetMessages() {
		out.Messages = append(out.Messages, sdk.Message{Role: sdk.Role(m.GetRole()), Parts: partsFromProto(m.GetParts())})
	}
	for _, t := range p.GetTools() {
		out.Tools = append(out.Tools, toolSpecFromProto(t))
	}
	if len(p.GetOptions()) > 0 {
		out.Options = make(map[string]json.RawMessage, len(p.GetOptions()))
		for k, v := range p.GetOptions() {
			out.Options[k] = v
		}
	}
	return out
}

// ---- Events ----

func eventToProto(e sdk.Event) *pb.Event {
	out := &pb.Event{}
	setEvent(out, e)
	return out
}

// setEvent fills a reset out with e.
func setEvent(out *pb.Event, e sdk.Event) {
	out.Type, out.Text, out.Signature, out.Redacted = string(e.Type), e.Text, e.Signature, e.Redacted
	out.Index, out.Finish, out.Model, out.Skipped = int32(e.Index), string(e.Finish), e.Model, int32(e.Skipped)
	if e.ToolCall != nil {
		out.ToolCall = toolCallToProto(*e.ToolCall)
	}
	if e.Usage != nil {
		out.Usage = &pb.Usage{
			InputTokens: e.Usage.InputTokens, OutputTokens: e.Usage.OutputTokens,
			CacheReadTokens: e.Usage.CacheReadTokens, CacheWriteTokens: e.Usage.CacheWriteTokens,
			ReasoningTokens: e.Usage.ReasoningTokens,
		}
	}
}

func eventFromProto(p *pb.Event) sdk.Event {
	out := sdk.Event{
		Type: sdk.EventType(p.GetType()), Text: p.GetText(), Signature: p.GetSignature(), Redacted: p.GetRedacted(),
		Index: int(p.GetIndex()), Finish: sdk.FinishReason(p.GetFinish()), Model: p.GetModel(), Skipped: int(p.GetSkipped()),
	}
	if p.ToolCall != nil {
		c := toolCallFromProto(p.ToolCall)
		out.ToolCall = &c
	}
	if u := p.GetUsage(); u != nil {
		out.Usage = &sdk.Usage{
			InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens,
			ReasoningTokens: u.ReasoningTokens,
		}
	}
	return out
}

// ---- Frames ----

func frameToProto(f sdk.Frame) *pb.Frame {
	return &pb.Frame{Expression: string(f.Expression), Text: f.Text, Status: f.Status}
}

func frameFromProto(p *pb.Frame) sdk.Frame {
	return sdk.Frame{Expression: sdk.Expression(p.GetExpression()), Text: p.GetText(), Status: p.GetStatus()}
}

func capsToProto(c sdk.DisplayCaps) *pb.DisplayCaps {
	return &pb.DisplayCaps{Width: int32(c.Width), Height: int32(c.Height), Mono: c.Mono, MinIntervalMs: c.MinIntervalMS}
}

func capsFromProto(p *pb.DisplayCaps) sdk.DisplayCaps {
	return sdk.DisplayCaps{Width: int(p.GetWidth()), Height: int(p.GetHeight()), Mono: p.GetMono(), MinIntervalMS: p.GetMinIntervalMs()}
}
