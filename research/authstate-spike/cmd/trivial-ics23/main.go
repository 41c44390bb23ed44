package main

import (
	"fmt"

	ics23 "github.com/cosmos/ics23/go"
)

func main() {
	fmt.Println(ics23.VerifyMembership(ics23.TendermintSpec, nil, &ics23.CommitmentProof{}, nil, nil))
}
