package pgwire

import (
	"encoding/binary"
	"net"
)

// sendCancel sends a raw CancelRequest packet.
func sendCancel(addr string, pid, secret uint32) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	pkt := binary.BigEndian.AppendUint32(nil, 16)
	pkt = binary.BigEndian.AppendUint32(pkt, cancelRequestCode)
	pkt = binary.BigEndian.AppendUint32(pkt, pid)
	pkt = binary.BigEndian.AppendUint32(pkt, secret)
	_, err = c.Write(pkt)
	return err
}
