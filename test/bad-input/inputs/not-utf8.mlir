// a Latin-1 byte in a comment: é
func.func @f() {
  func.return
}
