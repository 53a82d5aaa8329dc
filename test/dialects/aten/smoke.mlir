// RUN: pipeline-opt %s | filecheck %s

func.func @f(%x: tensor<?x16xf32>, %n: index) -> tensor<?x16xf32> {
  %0 = aten.exp %x : tensor<?x16xf32> -> tensor<?x16xf32>
  func.return %0 : tensor<?x16xf32>
}
// CHECK: aten.exp %x : tensor<?x16xf32> -> tensor<?x16xf32>
