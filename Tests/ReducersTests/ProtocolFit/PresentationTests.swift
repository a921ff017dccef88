import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// Presentation pacing is the host's choice; the state keeps the full text either way.
@Suite("Reply presentation")
struct PresentationTests {
  static func replying(_ presentation: ReplyPresentation) -> (Chat, RequestID) {
    let chat = Chat(.existing(), policy: ChatPolicy(replyPresentation: presentation))
    let request = chat.userSends("Q", id: "c1")
    chat.send(.replyStarted(request, agent: nil, at: time(1)))
    return (chat, request)
  }

  @Test("stream shows every delta at once")
  func stream() {
    let (chat, request) = Self.replying(.stream)
    #expect(chat.send(.replyDelta(request, "Hello there")) == [])
    #expect(chat.state.streamingReply?.presentedText == "Hello there")
  }

  @Test("paced releases text at a steady rate on the clock, however bursty the network")
  func paced() {
    let (chat, request) = Self.replying(.paced(bytesPerSecond: 100))  // 5 bytes per 0.05 s tick
    #expect(chat.send(.replyDelta(request, "Hello there, friend")) == [.startTimer(.pace, seconds: 0.05)])
    #expect(chat.state.streamingReply?.presentedText == "")
    #expect(chat.send(.timerFired(.pace, at: time(1.05))) == [.startTimer(.pace, seconds: 0.05)])
    #expect(chat.state.streamingReply?.presentedText == "Hello")
    #expect(chat.send(.replyDelta(request, " More.")) == [], "the timer is already running")
    chat.send(.timerFired(.pace, at: time(1.1)))
    #expect(chat.state.streamingReply?.presentedText == "Hello ther")
    #expect(chat.state.streamingReply?.text.string == "Hello there, friend More.", "the state has all of it")
    for tick in 0..<10 { chat.send(.timerFired(.pace, at: time(1.15 + Double(tick) * 0.05))) }
    #expect(chat.state.streamingReply?.presentedText == "Hello there, friend More.")
  }

  @Test("paced never splits a character")
  func pacedCharacters() {
    let (chat, request) = Self.replying(.paced(bytesPerSecond: 40))  // 2 bytes per tick
    chat.send(.replyDelta(request, "日本"))  // 3 bytes each
    chat.send(.timerFired(.pace, at: time(2)))
    #expect(chat.state.streamingReply?.presentedText == "")
    chat.send(.timerFired(.pace, at: time(2.05)))
    #expect(chat.state.streamingReply?.presentedText == "日")
  }

  @Test("instant shows nothing until the reply is finished, then the whole answer")
  func instant() {
    let (chat, request) = Self.replying(.instant)
    chat.send(.replyDelta(request, "Partial"))
    #expect(chat.state.streamingReply?.presentedText == "")
    chat.send(.replyFinished(request, message: .server("Partial answer.", id: "a1", at: 2)))
    #expect(chat.state.messages.last?.text == "Partial answer.")
  }
}
