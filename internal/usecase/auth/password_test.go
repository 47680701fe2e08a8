package auth

import "testing"

func TestHasherRoundTrip(t *testing.T) {
	h := Hasher{Memory: 64, Time: 1, Threads: 1}
	enc, err := h.Hash("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := h.Hash("correct horse")
	if enc == again {
		t.Error("two hashes of one password are equal: the salt is not random")
	}
	// Verify reads the parameters from the hash, whatever the verifier's own are.
	if !DefaultHasher.Verify("correct horse", enc) {
		t.Error("the right password does not verify")
	}
	for _, bad := range []string{"correct horsE", "", "correct horse "} {
		if h.Verify(bad, enc) {
			t.Errorf("%q verifies", bad)
		}
	}
	for _, broken := range []string{"", "$argon2i$v=19$m=64,t=1,p=1$c2FsdA$a2V5", "$argon2id$v=19$m=64,t=0,p=1$c2FsdA$a2V5",
		"$argon2id$v=19$m=99999999,t=1,p=1$c2FsdA$a2V5", "$argon2id$v=19$m=64,t=1,p=1$!!$a2V5"} {
		if h.Verify("x", broken) {
			t.Errorf("malformed hash %q verifies", broken)
		}
	}
}
