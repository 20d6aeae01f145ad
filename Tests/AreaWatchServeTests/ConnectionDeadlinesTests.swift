import Testing

@testable import AreaWatchServe

/// The rules of `ConnectionDeadlines` (which deadline runs in which state), on plain numbers.
@Suite struct ConnectionDeadlinesTests {
    static let limits = ConnectionDeadlines.Limits(header: 10, idle: 75, write: 30)

    func at(_ d: ConnectionDeadlines) -> UInt64? { d.next?.at }

    @Test func aNewConnectionHasTheHeaderTimeoutUntilItsFirstHead() {
        var d = ConnectionDeadlines(limits: Self.limits, now: 1000)
        #expect(d.next?.at == 1010 && d.next?.reason == .header)
        // Bytes of the first head do not extend it (a client dribbling a head is cut at 10).
        d.bytesArrived(now: 1005)
        #expect(at(d) == 1010)
        d.headArrived()
        #expect(d.next == nil, "no read deadline while the request is answered")
    }

    @Test func idleAfterAResponseThenHeaderFromTheFirstByte() {
        var d = ConnectionDeadlines(limits: Self.limits, now: 0)
        d.headArrived()
        d.responseEnded(now: 100)
        #expect(d.next?.at == 175 && d.next?.reason == .idle)
        d.bytesArrived(now: 150)
        #expect(d.next?.at == 160 && d.next?.reason == .header)
        d.bytesArrived(now: 158)
        #expect(at(d) == 160, "later bytes of the same head do not extend it")
        d.headArrived()
        #expect(d.next == nil)
    }

    @Test func pipelinedRequestsKeepTheConnectionBusyUntilTheLastAnswer() {
        var d = ConnectionDeadlines(limits: Self.limits, now: 0)
        d.headArrived()
        d.headArrived()
        d.responseEnded(now: 5)
        #expect(d.next == nil && d.requestsInFlight == 1)
        d.responseEnded(now: 8)
        #expect(d.next?.at == 83 && d.next?.reason == .idle)
        d.responseEnded(now: 9)
        #expect(d.requestsInFlight == 0, "a stray end does not go below zero")
    }

    @Test func bodyBytesTheSocketDoesNotTakeHaveTheWriteTimeoutFromTheLastProgress() {
        var d = ConnectionDeadlines(limits: Self.limits, now: 0)
        d.headArrived()
        d.writeStarted(now: 40)
        #expect(d.next?.at == 70 && d.next?.reason == .write)
        d.writeStarted(now: 45)
        #expect(at(d) == 70, "waiting since the first part")
        d.writeFinished(now: 60)
        #expect(d.next?.at == 90, "one part taken: progress, the other waits from now")
        d.writeFinished(now: 65)
        #expect(d.next == nil && d.writesPending == 0)
        // The last answer's bytes not taken while idle: the earlier deadline wins.
        d.writeStarted(now: 99)
        d.responseEnded(now: 100)
        #expect(d.next?.at == 129 && d.next?.reason == .write)
        d.writeFinished(now: 110)
        #expect(d.next?.at == 175 && d.next?.reason == .idle)
        d.writeFinished(now: 111)
        #expect(d.writesPending == 0, "a stray completion does not go below zero")
    }

    @Test func closingHasTheWriteTimeoutFromTheFirstClose() {
        var d = ConnectionDeadlines(limits: Self.limits, now: 0)
        d.headArrived()
        d.closing(now: 20)
        d.closing(now: 40)
        #expect(d.next?.at == 50 && d.next?.reason == .closing)
    }

    @Test func limitsFromTheOptions() {
        let options = ServeLimits(
            headerTimeout: .milliseconds(1500), idleTimeout: .seconds(75),
            writeTimeout: .seconds(30))
        let limits = ConnectionDeadlines.Limits(options)
        #expect(limits == .init(header: 1_500_000_000, idle: 75_000_000_000, write: 30_000_000_000))
    }
}
