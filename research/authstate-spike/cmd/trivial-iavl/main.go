package main

import (
	"fmt"

	"cosmossdk.io/log"
	dbm "github.com/cosmos/cosmos-db"
	"github.com/cosmos/iavl"
	idb "github.com/cosmos/iavl/db"
	ics23 "github.com/cosmos/ics23/go"
)

func main() {
	ldb, err := dbm.NewGoLevelDB("x", "/tmp/trivial-iavl", nil)
	if err != nil {
		panic(err)
	}
	t := iavl.NewMutableTree(idb.NewWrapper(ldb), 100, true, log.NewNopLogger())
	t.Set([]byte("a"), []byte("b"))
	h, v, _ := t.SaveVersion()
	fmt.Println(h, v, ics23.IavlSpec != nil)
}
