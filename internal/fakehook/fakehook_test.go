package fakehook

import (
	"context"
	"testing"
)

func TestFromContext(t *testing.T) {
	t.Parallel()
	if o := FromContext(context.Background()); o != nil {
		t.Errorf("FromContext(Background) = %+v, want nil", o)
	}
	o := new(Outcome)
	if got := FromContext(NewContext(context.Background(), o)); got != o {
		t.Errorf("FromContext(NewContext(o)) = %p, want %p", got, o)
	}
}
