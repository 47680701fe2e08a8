package activitypub_test

import "regexp"

var keyIDParam = regexp.MustCompile(`keyId="[^"]*"`)

// replaceKeyID swaps the keyId of a Signature header.
func replaceKeyID(header, keyID string) string {
	return keyIDParam.ReplaceAllString(header, `keyId="`+keyID+`"`)
}
