// Package policy owns IAM policy documents as DynamoDB's resource-based
// policies carry them: Parse checks a document's grammar (Version,
// Statement, Sid, Effect, Principal/NotPrincipal, Action/NotAction,
// Resource/NotResource, Condition) and returns its parsed form, or an
// *Error saying what is malformed (ParseIdentity does the same for
// identity-based policies, which name no principal); Document.Denies
// answers whether an unconditional Deny statement covers a request (the
// engine's guard behind ConfirmRemoveSelfResourceAccess); Evaluate decides
// a request (principal, action, resource, condition context) against a
// principal's identity policies and a resource policy with IAM's logic,
// which --auth=sigv4 enforces.
//
// It is a pure leaf: it imports nothing of ExtendDB, does no I/O and keeps
// no state, so the engine maps its *Error to DynamoDB's ValidationException
// and a fuzz target holds it to "no panic, only *Error".
package policy
