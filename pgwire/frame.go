package pgwire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgproto3"
)

// Reading frontend messages. pgproto3's Backend.Receive allocates a message's whole declared
// length before its bytes arrive and its decoders panic on some inconsistent frames (v5.7.5:
// a Bind parameter length below -1, counts that run past the frame); frameReader does the
// framing itself and only borrows pgproto3's message types for decoding:
//
//   - the declared length is checked against a per-type bound before anything is allocated;
//   - the body buffer grows only as bytes arrive (at most twice what was received, plus 64 KiB);
//   - a decoder's error or panic becomes a *protocolError whose text names the message type,
//     never Go's text (the panic itself is logged by the caller).

// readChunk is the most a body buffer grows by ahead of the bytes received.
const readChunk = 64 << 10

// keepBuffer is the largest body buffer kept between messages; a bigger one is dropped so
// that an idle connection does not hold the memory of its largest message.
const keepBuffer = 1 << 20

// protocolError is a malformed or unexpected frontend message: FATAL 08P01 with Message, the
// connection closed. internal (logged, never sent) says what went wrong in Go terms.
type protocolError struct {
	Message  string
	internal string
}

func (e *protocolError) Error() string { return e.Message }

// frameReader reads frontend messages from a buffered connection.
type frameReader struct {
	r   *bufio.Reader
	buf []byte
	// maxCopyData bounds CopyData messages (0: maxBody does).
	maxCopyData int
}

func newFrameReader(r io.Reader) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 8<<10)}
}

// next reads one message. maxBody bounds statement-carrying messages; messages that carry no
// statement are bounded by maxSmallMessage whatever maxBody says. authPhase selects how 'p'
// decodes (pgproto3.AuthTypeSASL / AuthTypeSASLContinue) and bounds everything to
// maxAuthMessage; 0 after authentication.
func (fr *frameReader) next(maxBody int, authPhase uint32) (pgproto3.FrontendMessage, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(fr.r, hdr[:]); err != nil {
		return nil, err
	}
	typ, length := hdr[0], binary.BigEndian.Uint32(hdr[1:])
	msg, small := newFrontendMessage(typ, authPhase)
	switch {
	case msg == nil && authPhase == pgproto3.AuthTypeSASL:
		return nil, &protocolError{Message: fmt.Sprintf("expected SASL initial response, got message type %d", typ)}
	case msg == nil && authPhase != 0:
		return nil, &protocolError{Message: fmt.Sprintf("expected SASL response, got message type %d", typ)}
	case msg == nil:
		return nil, &protocolError{Message: fmt.Sprintf("invalid frontend message type %d", typ)}
	}
	if length < 4 {
		return nil, &protocolError{Message: fmt.Sprintf("invalid message length %d", length)}
	}
	limit := maxBody
	if typ == 'd' && fr.maxCopyData != 0 {
		limit = fr.maxCopyData
	}
	if small {
		limit = maxSmallMessage
	}
	if authPhase != 0 {
		limit = min(limit, maxAuthMessage)
	}
	bodyLen := int64(length) - 4
	if limit > 0 && bodyLen > int64(limit) {
		return nil, &protocolError{Message: fmt.Sprintf(
			"invalid message length: a %s message of %d bytes exceeds the limit of %d bytes", messageName(typ), bodyLen, limit)}
	}
	body, err := fr.readBody(int(bodyLen))
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if err := decode(msg, typ, body); err != nil {
		return nil, err
	}
	return msg, nil
}

// readBody reads n bytes, growing the buffer only as they arrive.
func (fr *frameReader) readBody(n int) ([]byte, error) {
	if cap(fr.buf) > keepBuffer {
		fr.buf = nil
	}
	if n <= cap(fr.buf) {
		fr.buf = fr.buf[:n]
		_, err := io.ReadFull(fr.r, fr.buf)
		return fr.buf, err
	}
	buf := fr.buf[:0]
	for len(buf) < n {
		want := min(n, len(buf)+max(len(buf), readChunk))
		if want > cap(buf) {
			grown := make([]byte, len(buf), want)
			copy(grown, buf)
			buf = grown
		}
		m, err := io.ReadFull(fr.r, buf[len(buf):want])
		buf = buf[:len(buf)+m]
		if err != nil {
			return nil, err
		}
	}
	fr.buf = buf
	return buf, nil
}

// decode runs msg's decoder, turning its error or panic into a *protocolError.
func decode(msg pgproto3.FrontendMessage, typ byte, body []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &protocolError{
				Message:  fmt.Sprintf("invalid frontend message: malformed %s message", messageName(typ)),
				internal: fmt.Sprintf("pgproto3 %T.Decode panicked: %v", msg, r),
			}
		}
	}()
	if derr := msg.Decode(body); derr != nil {
		return &protocolError{
			Message:  fmt.Sprintf("invalid frontend message: malformed %s message", messageName(typ)),
			internal: derr.Error(),
		}
	}
	return nil
}

// newFrontendMessage is the message type byte typ stands for (nil: none), and whether it is a
// message that carries no statement or value (bounded by maxSmallMessage).
func newFrontendMessage(typ byte, authPhase uint32) (msg pgproto3.FrontendMessage, small bool) {
	if authPhase != 0 {
		switch {
		case typ != 'p':
			return nil, false
		case authPhase == pgproto3.AuthTypeSASL:
			return &pgproto3.SASLInitialResponse{}, false
		default:
			return &pgproto3.SASLResponse{}, false
		}
	}
	switch typ {
	case 'Q':
		return &pgproto3.Query{}, false
	case 'P':
		return &pgproto3.Parse{}, false
	case 'B':
		return &pgproto3.Bind{}, false
	case 'F':
		return &pgproto3.FunctionCall{}, false
	case 'd':
		return &pgproto3.CopyData{}, false
	case 'D':
		return &pgproto3.Describe{}, true
	case 'E':
		return &pgproto3.Execute{}, true
	case 'C':
		return &pgproto3.Close{}, true
	case 'S':
		return &pgproto3.Sync{}, true
	case 'H':
		return &pgproto3.Flush{}, true
	case 'X':
		return &pgproto3.Terminate{}, true
	case 'c':
		return &pgproto3.CopyDone{}, true
	case 'f':
		return &pgproto3.CopyFail{}, true
	case 'p':
		// A password message after authentication: decoded, then refused as unexpected.
		return &pgproto3.PasswordMessage{}, true
	}
	return nil, false
}

// messageName names a frontend message type for error texts.
func messageName(typ byte) string {
	names := map[byte]string{
		'Q': "Query", 'P': "Parse", 'B': "Bind", 'F': "FunctionCall", 'd': "CopyData", 'D': "Describe",
		'E': "Execute", 'C': "Close", 'S': "Sync", 'H': "Flush", 'X': "Terminate", 'c': "CopyDone",
		'f': "CopyFail", 'p': "password",
	}
	if n, ok := names[typ]; ok {
		return n
	}
	return fmt.Sprintf("type %d", typ)
}
